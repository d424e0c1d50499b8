//! String and bytes literal unescaping, as cel-go's `parser/unescape.go`.

/// Unescapes a quoted literal (with its quotes and optional `r` prefix; bytes literals without
/// their `b`). Strings come out as UTF-8; for bytes, `\x` and octal escapes are raw bytes and
/// `\u`/`\U` are errors. Newlines (`\r\n`, `\r`) are normalized to `\n`, even in raw strings.
pub(crate) fn unescape(value: &str, is_bytes: bool) -> Result<Vec<u8>, String> {
    let value = value.replace("\r\n", "\n").replace('\r', "\n");
    let mut v = value.as_str();
    let bad = || "unable to unescape string".to_string();
    if v.len() < 2 {
        return Err(bad());
    }
    let mut raw = false;
    if v.starts_with(['r', 'R']) {
        v = v.get(1..).unwrap_or("");
        raw = true;
    }
    let first = v.bytes().next();
    let last = v.bytes().last();
    if v.is_empty() || first != last || !matches!(first, Some(b'"' | b'\'')) {
        return Err(bad());
    }
    let n = v.len();
    let inner: &str = if n >= 6 && (v.starts_with("'''") || v.starts_with("\"\"\"")) {
        let q = v.get(..3).unwrap_or("");
        if !v.ends_with(q) {
            return Err(bad());
        }
        v.get(3..n - 3).unwrap_or("")
    } else {
        v.get(1..n - 1).unwrap_or("")
    };
    if raw || !inner.contains('\\') {
        return Ok(inner.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut rest = inner;
    while !rest.is_empty() {
        let (value, encode, tail) = unescape_char(rest, is_bytes)?;
        rest = tail;
        if value < 0x80 || !encode {
            out.push(value as u8);
        } else if let Some(c) = char::from_u32(value) {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        } else {
            // Go encodes an invalid rune as U+FFFD.
            out.extend_from_slice("\u{fffd}".as_bytes());
        }
    }
    Ok(out)
}

fn unescape_char(s: &str, is_bytes: bool) -> Result<(u32, bool, &str), String> {
    let bad = || "unable to unescape string".to_string();
    let mut chars = s.chars();
    let c = chars.next().ok_or_else(bad)?;
    if c as u32 >= 0x80 {
        return Ok((c as u32, true, chars.as_str()));
    }
    if c != '\\' {
        return Ok((c as u32, false, chars.as_str()));
    }
    let Some(e) = chars.next() else {
        return Err("unable to unescape string, found '\\' as last character".to_string());
    };
    let rest = chars.as_str();
    let simple = match e {
        'a' => Some(7),
        'b' => Some(8),
        'f' => Some(12),
        'n' => Some(10),
        'r' => Some(13),
        't' => Some(9),
        'v' => Some(11),
        '\\' => Some(92),
        '\'' => Some(39),
        '"' => Some(34),
        '`' => Some(96),
        '?' => Some(63),
        _ => None,
    };
    if let Some(v) = simple {
        return Ok((v, false, rest));
    }
    match e {
        'x' | 'X' | 'u' | 'U' => {
            let n = match e {
                'x' | 'X' => 2,
                'u' => 4,
                _ => 8,
            };
            if is_bytes && (e == 'u' || e == 'U') {
                return Err(bad());
            }
            let digits = rest.get(..n).ok_or_else(bad)?;
            let mut v: u32 = 0;
            for d in digits.chars() {
                v = (v << 4) | d.to_digit(16).ok_or_else(bad)?;
            }
            if !is_bytes && char::from_u32(v).is_none() {
                return Err("invalid unicode code point".to_string());
            }
            let encode = !(is_bytes && (e == 'x' || e == 'X'));
            Ok((v, encode, rest.get(n..).unwrap_or("")))
        }
        '0'..='3' => {
            let digits = rest
                .get(..2)
                .ok_or_else(|| "unable to unescape octal sequence in string".to_string())?;
            let mut v = e as u32 - '0' as u32;
            for d in digits.chars() {
                if !('0'..='7').contains(&d) {
                    return Err("unable to unescape octal sequence in string".to_string());
                }
                v = v * 8 + (d as u32 - '0' as u32);
            }
            Ok((v, !is_bytes, rest.get(2..).unwrap_or("")))
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        let cases: &[(&str, &str)] = &[
            (r#""a\nb""#, "a\nb"),
            (r#"'\x41\101\u00e9\U0001F600'"#, "AAé😀"),
            (r#"r'\n'"#, "\\n"),
            ("'''a\r\nb'''", "a\nb"),
            (r#""\xff""#, "ÿ"),
            (r#""\`\?""#, "`?"),
            ("\"\"", ""),
        ];
        for (input, want) in cases {
            let got = unescape(input, false).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), *want, "{input}");
        }
    }

    #[test]
    fn bytes_and_errors() {
        assert_eq!(
            unescape(r#""\xff\377é""#, true).unwrap(),
            vec![0xff, 0xff, 0xc3, 0xa9]
        );
        assert_eq!(
            unescape(r#""\u0041""#, true).unwrap_err(),
            "unable to unescape string"
        );
        assert_eq!(
            unescape(r#""\ud800""#, false).unwrap_err(),
            "invalid unicode code point"
        );
        assert_eq!(
            unescape("x", false).unwrap_err(),
            "unable to unescape string"
        );
    }
}
