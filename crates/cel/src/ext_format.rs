//! ext strings' `format` (strings library version 2, cel-go's `ext/formatting.go` with the
//! `en_US` locale): `%s %d %f %e %b %o %x %X %%` with an optional precision, Go's formatting of
//! each type, and golang.org/x/text's locale printer for `%f` (digit grouping) and `%e`
//! (`3.140000×10⁰⁰`).

use crate::value::{format_v, List, Value};

const DEFAULT_PRECISION: usize = 6;

/// Formats `fmt` with `args`, or cel-go's error text.
pub fn format(fmt: &str, args: &List<'_>) -> Result<String, String> {
    let b = fmt.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len());
    let mut i = 0;
    let mut arg_index: usize = 0;
    while i < b.len() {
        let c = b.get(i).copied().unwrap_or(0);
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        if arg_index >= args.len() {
            return Err(format!("index {arg_index} out of range"));
        }
        let arg = args.get(arg_index).unwrap_or(Value::Null);
        if i + 1 >= b.len() {
            return Err("unexpected end of string".into());
        }
        let (read, s) = clause(fmt.get(i + 1..).unwrap_or(""), &arg)?;
        out.extend_from_slice(s.as_bytes());
        i += 1 + read;
        arg_index += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn clause(s: &str, arg: &Value<'_>) -> Result<(usize, String), String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut precision: Option<usize> = None;
    if b.first() == Some(&b'.') {
        i = 1;
        let start = i;
        loop {
            match b.get(i) {
                None => {
                    return Err(
                        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
                            .into(),
                    )
                }
                Some(c) if c.is_ascii_digit() => i += 1,
                Some(_) => break,
            }
        }
        let digits = s.get(start..i).unwrap_or("");
        let n = crd_studio_gostd::strconv::atoi(digits).map_err(|e| {
            format!(
                "could not parse formatting clause: error while parsing precision: error while converting precision to integer: {e}"
            )
        })?;
        // Digits only: never negative. The runtime cancels an evaluation whose precisions
        // pass its growth cap before it calls here; this bound keeps a direct call from
        // asking for more memory than that (cel-go's text for its own later cap). `%e`'s
        // "precision" is a width that x/text bounds itself (see `scientific_width`).
        let max = crate::cost_rt::MAX_GROWTH_BYTES;
        if n as u64 > max && !s.get(i..).is_some_and(|r| r.starts_with('e')) {
            return Err(format!(
                "could not parse formatting clause: error while parsing precision: precision {n} exceeds maximum allowed precision {max}"
            ));
        }
        precision = Some(usize::try_from(n).unwrap_or(usize::MAX));
    }
    let Some(verb) = s.get(i..).and_then(|r| r.chars().next()) else {
        return Err("unexpected end of string".into());
    };
    i += verb.len_utf8();
    let during = |e: String| format!("error during formatting: {e}");
    let out = match verb {
        's' => format_string(arg).map_err(during)?,
        'd' => format_decimal(arg).map_err(during)?,
        'f' => format_fixed(arg, precision.unwrap_or(DEFAULT_PRECISION)).map_err(during)?,
        'e' => format_scientific(arg, precision.unwrap_or(DEFAULT_PRECISION)).map_err(during)?,
        'b' => match arg {
            Value::Int(v) => {
                if *v < 0 {
                    format!("-{:b}", v.unsigned_abs())
                } else {
                    format!("{v:b}")
                }
            }
            Value::Uint(v) => format!("{v:b}"),
            Value::Bool(v) => if *v { "1" } else { "0" }.to_string(),
            other => {
                return Err(during(format!(
                    "only integers and bools can be formatted as binary, was given {}",
                    other.type_name()
                )))
            }
        },
        'x' | 'X' => {
            let s = match arg {
                Value::Int(v) => {
                    if *v < 0 {
                        format!("-{:x}", v.unsigned_abs())
                    } else {
                        format!("{v:x}")
                    }
                }
                Value::Uint(v) => format!("{v:x}"),
                Value::String(s) => hex(s.as_str().as_bytes()),
                Value::Bytes(b) => hex(b),
                other => {
                    return Err(during(format!(
                        "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                        other.type_name()
                    )))
                }
            };
            if verb == 'X' {
                s.to_uppercase()
            } else {
                s
            }
        }
        'o' => match arg {
            Value::Int(v) => {
                if *v < 0 {
                    format!("-{:o}", v.unsigned_abs())
                } else {
                    format!("{v:o}")
                }
            }
            Value::Uint(v) => format!("{v:o}"),
            other => {
                return Err(during(format!(
                    "octal clause can only be used on integers, was given {}",
                    other.type_name()
                )))
            }
        },
        other => {
            return Err(format!(
                "could not parse formatting clause: unrecognized formatting clause \"{other}\""
            ))
        }
    };
    Ok((i, out))
}

fn hex(b: &[u8]) -> String {
    let digit = |n: u8| char::from(if n < 10 { b'0' + n } else { b'a' + n - 10 });
    let mut out = String::with_capacity(b.len().saturating_mul(2));
    for &c in b {
        out.push(digit(c >> 4));
        out.push(digit(c & 15));
    }
    out
}

fn string_error(t: &str) -> String {
    format!("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {t}")
}

/// `FormatString`.
fn format_string(arg: &Value<'_>) -> Result<String, String> {
    match arg {
        Value::List(l) => format_list(l),
        Value::Map(_) => format_map(arg),
        Value::Null => Ok("null".into()),
        Value::Type(t) => Ok(t.0.to_string()),
        Value::Int(_)
        | Value::Uint(_)
        | Value::Double(_)
        | Value::Bool(_)
        | Value::String(_)
        | Value::Timestamp(_)
        | Value::Bytes(_)
        | Value::Duration(_) => {
            let info = crate::stdlib_rt::CallInfo::new("string".into(), None, false);
            let v = crate::stdlib_rt::call(&info, std::slice::from_ref(arg)).0;
            match v {
                Value::String(s) => Ok(s.as_str().to_string()),
                other => Err(format!(
                    "could not convert argument {} to string",
                    crd_studio_gostd::strconv::quote(&format_v(&other))
                )),
            }
        }
        other => Err(string_error(other.type_name())),
    }
}

/// The per-element formatting of lists and maps (`clauseForType`).
fn format_element(v: &Value<'_>) -> Result<String, String> {
    let raw = match v {
        Value::Int(_) | Value::Uint(_) => format_decimal(v)?,
        // cel-go's `clauseForType` lists the type type with these (its later `type(...)` case
        // is unreachable): a type in a list prints as its bare name.
        Value::String(_) | Value::Bytes(_) | Value::Bool(_) | Value::Null | Value::Type(_) => {
            format_string(v)?
        }
        Value::Timestamp(_) | Value::Duration(_) => {
            let s = format_string(v)?;
            let kind = if matches!(v, Value::Timestamp(_)) {
                "timestamp"
            } else {
                "duration"
            };
            format!("{kind}({})", crd_studio_gostd::strconv::quote(&s))
        }
        Value::List(l) => format_list(l)?,
        Value::Map(_) => format_map(v)?,
        // Go's `fmt.Sprintf("%.6f", d)`: `NaN`, `+Inf`, `-Inf` for the non-finite values
        // (Rust would print `inf`), then quoted by `quoteForCEL`.
        Value::Double(d) => go_fixed(*d, DEFAULT_PRECISION),
        other => return Err(format!("no formatting function for {}", other.type_name())),
    };
    Ok(quote_for_cel(v, raw))
}

/// Go's `%.<p>f` without a locale: non-finite values as Go prints them.
fn go_fixed(d: f64, p: usize) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{d:.p$}")
    }
}

fn quote_for_cel(v: &Value<'_>, raw: String) -> String {
    match v {
        Value::String(_) => crd_studio_gostd::strconv::quote(&raw),
        Value::Bytes(_) => format!("b{}", crd_studio_gostd::strconv::quote(&raw)),
        Value::Double(d) if d.is_nan() || d.is_infinite() => crd_studio_gostd::strconv::quote(&raw),
        _ => raw,
    }
}

fn format_list(l: &List<'_>) -> Result<String, String> {
    let mut parts = Vec::with_capacity(l.len());
    for e in l.iter() {
        parts.push(format_element(&e)?);
    }
    Ok(format!("[{}]", parts.join(", ")))
}

fn format_map(m: &Value<'_>) -> Result<String, String> {
    let Value::Map(m) = m else {
        return Err(string_error(m.type_name()));
    };
    let mut pairs = Vec::new();
    for k in m.keys() {
        let key = match &k {
            Value::String(_) | Value::Bool(_) => format_string(&k)?,
            Value::Int(_) | Value::Uint(_) => format_decimal(&k)?,
            other => {
                return Err(format!(
                    "no formatting function for map key of type {}",
                    other.type_name()
                ))
            }
        };
        let key = quote_for_cel(&k, key);
        let v = m.get(&k);
        pairs.push((key, format_element(&v)?));
    }
    crd_studio_gostd::sort::stable_by(&mut pairs, |a, b| a.0.cmp(&b.0));
    let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", body.join(", ")))
}

fn format_decimal(arg: &Value<'_>) -> Result<String, String> {
    match arg {
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        other => Err(format!(
            "decimal clause can only be used on integers, was given {}",
            other.type_name()
        )),
    }
}

fn float_arg(arg: &Value<'_>, clause: &str) -> Result<f64, String> {
    match arg {
        Value::Double(d) => Ok(*d),
        Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
            Ok(match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            })
        }
        other => Err(format!(
            "{clause} clause can only be used on doubles, was given {}",
            other.type_name()
        )),
    }
}

fn non_finite(d: f64) -> Option<String> {
    if d.is_nan() {
        Some("NaN".into())
    } else if d.is_infinite() {
        Some(if d > 0.0 { "∞".into() } else { "-∞".into() })
    } else {
        None
    }
}

fn group_thousands(int_part: &str) -> String {
    let digits: Vec<char> = int_part.chars().collect();
    let mut out = String::new();
    for (i, c) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*c);
    }
    out
}

/// `%.<p>f` through the `en_US` message printer (thousands grouped).
fn format_fixed(arg: &Value<'_>, p: usize) -> Result<String, String> {
    let d = float_arg(arg, "fixed-point")?;
    if let Some(s) = non_finite(d) {
        return Ok(s);
    }
    let s = exact_fixed(d.abs(), p);
    let (int_part, frac) = s.split_once('.').unwrap_or((&s, ""));
    let mut out = String::new();
    // x/text marks a number negative when it is below zero, even if it rounds to zero
    // (`-0.00`); negative zero itself is not.
    if d < 0.0 {
        out.push('-');
    }
    out.push_str(&group_thousands(int_part));
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Ok(out)
}

/// The most fraction digits a finite double's exact decimal expansion has (2^-1074).
const MAX_EXACT_FRACTION_DIGITS: usize = 1074;
/// The most significant digits a finite double's exact decimal expansion has.
const MAX_EXACT_SIGNIFICANT_DIGITS: usize = 767;

/// `{:.p}` of a finite `d`, for any precision. Rust's formatter asserts on precisions past
/// 65,534; Go's `strconv` prints any precision. Past the exact expansion every further digit
/// is a zero: format at the longest exact precision and append the zeros.
fn exact_fixed(d: f64, p: usize) -> String {
    let q = p.min(MAX_EXACT_FRACTION_DIGITS);
    let mut s = format!("{d:.q$}");
    pad_zeros(&mut s, p - q);
    s
}

/// `{:.pe}` of a finite `d`, for any precision (see [`exact_fixed`]).
fn exact_scientific(d: f64, p: usize) -> String {
    let q = p.min(MAX_EXACT_SIGNIFICANT_DIGITS);
    let s = format!("{d:.q$e}");
    if p == q {
        return s;
    }
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mut out = String::with_capacity(s.len() + (p - q));
    out.push_str(mant);
    pad_zeros(&mut out, p - q);
    out.push('e');
    out.push_str(exp);
    out
}

fn pad_zeros(s: &mut String, n: usize) {
    s.reserve(n);
    s.extend(std::iter::repeat_n('0', n));
}

/// The bytes `fmt`'s precisions alone add to the output (a lower bound of its length beyond
/// the format text and the arguments), counted without formatting: the runtime charges them
/// against its growth cap before [`format`] allocates them.
pub fn precision_bytes(fmt: &str) -> u64 {
    let b = fmt.as_bytes();
    let mut total: u64 = 0;
    let mut i = 0;
    while i < b.len() {
        if b.get(i) != Some(&b'%') {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        i += 1;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let mut p: Option<u64> = Some(0);
            while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                p = p
                    .and_then(|p| p.checked_mul(10))
                    .and_then(|p| p.checked_add(u64::from(c - b'0')));
                i += 1;
            }
            // Past Go's int the clause fails to parse (strconv.Atoi): it builds nothing.
            let mut p = p.filter(|p| *p <= i64::MAX as u64).unwrap_or(0);
            // `%e`'s precision is a width x/text bounds (`scientific_width`).
            if b.get(i) == Some(&b'e') {
                p = p.min(MAX_SCIENTIFIC_WIDTH);
            }
            total = total.saturating_add(p);
        }
    }
    total
}

/// An upper bound of the length of `format(fmt, args)` (the format text, its precisions and
/// each argument formatted at its longest: strings quoted with every byte escaped or printed
/// as hex), computed without formatting. The traversal stops once past `stop` (shared
/// elements would make it exponential).
pub fn output_bound(fmt: &str, args: &List<'_>, stop: u64) -> u64 {
    /// Any scalar's longest text: `%f` of the largest double with its digit grouping, a
    /// timestamp or duration quoted in `timestamp(...)`.
    const SCALAR: u64 = 512;
    let mut total = (fmt.len() as u64).saturating_add(precision_bytes(fmt));
    let mut stack: Vec<Value<'_>> = args.iter().collect();
    while let Some(v) = stack.pop() {
        if total > stop {
            break;
        }
        let n = match &v {
            Value::String(s) => (s.as_str().len() as u64)
                .saturating_mul(4)
                .saturating_add(3),
            Value::Bytes(b) => (b.len() as u64).saturating_mul(4).saturating_add(3),
            Value::List(l) => {
                stack.extend(l.iter());
                (l.len() as u64).saturating_mul(2).saturating_add(2)
            }
            Value::Map(m) => {
                for k in m.keys() {
                    stack.push(m.get(&k));
                    stack.push(k);
                }
                (m.len() as u64).saturating_mul(3).saturating_add(2)
            }
            Value::Type(t) => (t.0.to_string().len() as u64).saturating_add(SCALAR),
            _ => SCALAR,
        };
        total = total.saturating_add(n);
    }
    total
}

fn superscript(c: char) -> char {
    match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        '-' => '⁻',
        '+' => '⁺',
        c => c,
    }
}

/// x/text's `parsenum` (`internal/format/parser.go`): the width a `%<digits>e` verb gets, or
/// `None` when the digits overflow it (`tooLarge`: past 1e6 before another digit) and the
/// printer writes `%!(NOVERB)`. A leading `0` is the zero-padding flag, not a width: `%0e`
/// has none (`Some(0)`).
fn scientific_width(digits: usize) -> Option<usize> {
    const MAX: usize = 1_000_000;
    if digits / 10 > MAX {
        None
    } else {
        Some(digits)
    }
}

/// The widest `%e` clause x/text prints (see [`scientific_width`]).
const MAX_SCIENTIFIC_WIDTH: u64 = 10 * 1_000_000 + 9;

/// `%.<p>e`: cel-go's `stringFormatter.Scientific` (`ext/formatting.go`, strings version 2 as
/// Kubernetes configures it) builds the Go format `fmt.Sprintf("%%%de", precision)`, that is
/// `%<p>e`: the clause's precision becomes the *width*, and x/text's message printer
/// (`printer.fmtScientific`, `initScientific`) formats with its default precision 6
/// (`3.140000×10⁰⁰`, exponent of at least two superscript digits), then pads with spaces
/// before the sign to `p` runes (`number.Formatter.Render`, `PadBeforePrefix`).
fn format_scientific(arg: &Value<'_>, p: usize) -> Result<String, String> {
    let d = float_arg(arg, "scientific")?;
    let Some(width) = scientific_width(p) else {
        return Ok("%!(NOVERB)".into());
    };
    let body = match non_finite(d) {
        Some(s) => s,
        None => scientific_body(d),
    };
    let runes = body.chars().count();
    if runes >= width {
        return Ok(body);
    }
    let mut out = String::with_capacity(body.len() + (width - runes));
    pad_spaces(&mut out, width - runes);
    out.push_str(&body);
    Ok(out)
}

fn pad_spaces(s: &mut String, n: usize) {
    s.reserve(n);
    s.extend(std::iter::repeat_n(' ', n));
}

/// A finite `d` at x/text's default `%e` precision (6): `strconv`'s correctly rounded
/// seven significant digits (`Decimal.ConvertFloat` with `RoundSignificantDigits` 7).
fn scientific_body(d: f64) -> String {
    let s = exact_scientific(d.abs(), DEFAULT_PRECISION);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut out = String::new();
    if d < 0.0 {
        out.push('-');
    }
    out.push_str(mant);
    out.push('×');
    out.push_str("10");
    if exp < 0 {
        out.push('⁻');
    }
    let e = format!("{:02}", exp.unsigned_abs());
    out.extend(e.chars().map(superscript));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: Vec<Value<'static>>) -> Result<String, String> {
        let Value::List(l) = Value::list(args) else {
            panic!()
        };
        format(fmt, &l)
    }

    #[test]
    fn precisions_past_the_exact_expansion_append_zeros() {
        // Rust's own formatter (exact at any precision it accepts) is the reference.
        for d in [
            5e-324,
            2.2250738585072014e-308,
            1.0,
            0.1,
            1.7976931348623157e308,
            123.456,
        ] {
            for p in [
                0,
                6,
                MAX_EXACT_SIGNIFICANT_DIGITS,
                MAX_EXACT_SIGNIFICANT_DIGITS + 1,
                1500,
            ] {
                assert_eq!(exact_scientific(d, p), format!("{d:.p$e}"), "{d} {p}");
            }
            for p in [
                0,
                6,
                MAX_EXACT_FRACTION_DIGITS,
                MAX_EXACT_FRACTION_DIGITS + 1,
                2000,
            ] {
                assert_eq!(exact_fixed(d, p), format!("{d:.p$}"), "{d} {p}");
            }
        }
        // Rust's formatter asserts here (`ndigits > 0`); Go prints every digit.
        assert_eq!(exact_scientific(1.0, 65535).len(), 65539);
    }

    /// cel-go v0.29.2 `ext/formatting.go` `stringFormatter.Scientific` builds `%<p>e` (the
    /// precision as a width) for golang.org/x/text's `message.Printer`: `printer.fmtScientific`
    /// keeps its precision 6, `number.Formatter.Render` pads to the width in runes before the
    /// sign; `internal/format/parser.go`: `%0e` is the zero flag (no width), a width whose
    /// digits overflow `parsenum` leaves no verb (`%!(NOVERB)`).
    #[test]
    fn scientific_precision_is_the_printers_width() {
        let d = Value::Double;
        let cases: Vec<(&str, Value<'static>, &str)> = vec![
            ("%.3e", d(0.000123), "1.230000×10⁻⁰⁴"),
            ("%.0e", d(0.000123), "1.230000×10⁻⁰⁴"),
            ("%.1e", d(0.000123), "1.230000×10⁻⁰⁴"),
            ("%.10e", d(0.000123), "1.230000×10⁻⁰⁴"),
            ("%.14e", d(0.000123), "1.230000×10⁻⁰⁴"),
            ("%.15e", d(0.000123), " 1.230000×10⁻⁰⁴"),
            ("%.20e", d(-0.000123), "     -1.230000×10⁻⁰⁴"),
            ("%e", d(0.000123), "1.230000×10⁻⁰⁴"),
            // Rounding at seven significant digits, whatever the clause's precision.
            ("%.0e", d(1.5), "1.500000×10⁰⁰"),
            ("%.3e", d(2.0 / 3.0), "6.666667×10⁻⁰¹"),
            ("%.1e", d(9.9999996), "1.000000×10⁰¹"),
            ("%.3e", d(1234567.5), "1.234568×10⁰⁶"),
            ("%.3e", d(1234568.5), "1.234568×10⁰⁶"),
            ("%.3e", d(123456789.0), "1.234568×10⁰⁸"),
            ("%.10e", d(1e100), "1.000000×10¹⁰⁰"),
            ("%.3e", d(0.0), "0.000000×10⁰⁰"),
            ("%.5e", d(f64::NAN), "  NaN"),
            ("%.4e", d(f64::NEG_INFINITY), "  -∞"),
            ("%.4e", Value::string("Infinity"), "   ∞"),
            ("%.10000010e", d(1.0), "%!(NOVERB)"),
        ];
        for (fmt, arg, want) in cases {
            assert_eq!(f(fmt, vec![arg]).unwrap(), want, "{fmt}");
        }
        // The widest width x/text accepts.
        let w = f("%.10000009e", vec![d(1.0)]).unwrap();
        assert_eq!(w.chars().count(), 10_000_009);
        assert_eq!(precision_bytes("%.99999999999e"), MAX_SCIENTIFIC_WIDTH);
    }

    #[test]
    fn precision_bytes_counts_what_format_would_build() {
        assert_eq!(precision_bytes("%.3f %e %%.9 %.12e"), 15);
        assert_eq!(precision_bytes("%.99999999999999999999f"), 0);
        assert_eq!(precision_bytes("%."), 0);
    }

    #[test]
    #[allow(clippy::approx_constant)]
    fn clauses() {
        assert_eq!(f("%e", vec![Value::Double(3.14)]).unwrap(), "3.140000×10⁰⁰");
        assert_eq!(
            f(
                "%o %o %o",
                vec![Value::Int(7), Value::Int(8), Value::Int(9)]
            )
            .unwrap(),
            "7 10 11"
        );
        assert_eq!(f("%.2f", vec![Value::Double(1234.5)]).unwrap(), "1,234.50");
        assert_eq!(f("%d%%", vec![Value::Int(5)]).unwrap(), "5%");
        assert_eq!(f("%x", vec![Value::string("hi")]).unwrap(), "6869");
        assert_eq!(f("%b", vec![Value::Int(5)]).unwrap(), "101");
        assert_eq!(
            f(
                "%s",
                vec![Value::list(vec![Value::string("a"), Value::Int(1)])]
            )
            .unwrap(),
            "[\"a\", 1]"
        );
        assert_eq!(f("%d", vec![]).unwrap_err(), "index 0 out of range");
        assert!(f("%d", vec![Value::string("x")])
            .unwrap_err()
            .starts_with("error during formatting: decimal clause"));
    }
}
