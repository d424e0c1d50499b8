//! Go's `encoding/base64` with `StdEncoding` (what `encoding/json` uses for `[]byte`).

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Go's `base64.StdEncoding.DecodeString` (padding required; `\r` and `\n` ignored).
pub fn decode(s: &str) -> Option<Vec<u8>> {
    decode_inner(s).ok()
}

/// The byte offset Go reports in `illegal base64 data at input byte N`.
pub fn decode_error_offset(s: &str) -> usize {
    decode_inner(s).err().unwrap_or(0)
}

fn decode_inner(s: &str) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let bytes: Vec<(usize, u8)> = s
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b != b'\r' && *b != b'\n')
        .collect();
    let mut i = 0;
    while i < bytes.len() {
        let mut quad = [0u8; 4];
        let mut n = 0;
        let mut pad = 0;
        while n < 4 {
            let Some(&(pos, c)) = bytes.get(i) else {
                if n == 0 {
                    return Ok(out);
                }
                return Err(bytes.last().map_or(0, |(p, _)| p + 1).min(s.len()));
            };
            if c == b'=' {
                if n < 2 {
                    return Err(pos);
                }
                pad = 4 - n;
                // The remaining pad characters must all be '='.
                for k in 0..pad {
                    match bytes.get(i + k) {
                        Some((_, b'=')) => {}
                        Some((p, _)) => return Err(*p),
                        None => return Err(s.len()),
                    }
                }
                i += pad;
                if let Some((p, _)) = bytes.get(i) {
                    return Err(*p);
                }
                break;
            }
            let Some(v) = B64.iter().position(|&x| x == c) else {
                return Err(pos);
            };
            if let Some(q) = quad.get_mut(n) {
                *q = v as u8;
            }
            n += 1;
            i += 1;
        }
        let [a, b, c, d] = quad;
        let v = (u32::from(a) << 18) | (u32::from(b) << 12) | (u32::from(c) << 6) | u32::from(d);
        let got = if pad > 0 { 4 - pad } else { 4 };
        out.push((v >> 16) as u8);
        if got > 2 {
            out.push((v >> 8) as u8);
        }
        if got > 3 {
            out.push(v as u8);
        }
        if pad > 0 {
            break;
        }
    }
    Ok(out)
}

/// Go's `base64.StdEncoding.EncodeToString`.
pub fn encode(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let mut buf = [0u8; 3];
        for (i, x) in chunk.iter().enumerate() {
            if let Some(slot) = buf.get_mut(i) {
                *slot = *x;
            }
        }
        let v = (u32::from(buf[0]) << 16) | (u32::from(buf[1]) << 8) | u32::from(buf[2]);
        let ch = |k: u32| char::from(B64.get(((v >> k) & 63) as usize).copied().unwrap_or(b'A'));
        s.push(ch(18));
        s.push(ch(12));
        s.push(if chunk.len() > 1 { ch(6) } else { '=' });
        s.push(if chunk.len() > 2 { ch(0) } else { '=' });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trip() {
        assert_eq!(encode(b"\n"), "Cg==");
        assert_eq!(encode(b"abcd"), "YWJjZA==");
        assert_eq!(decode("YWJjZA==").as_deref(), Some(&b"abcd"[..]));
        assert_eq!(decode("Cg==").as_deref(), Some(&b"\n"[..]));
        assert_eq!(decode("-----BEGIN"), None);
    }

    #[test]
    fn std_encoding_round_trip() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = encode(s.as_bytes());
            assert_eq!(decode(&e).as_deref(), Some(s.as_bytes()), "{e}");
        }
        assert_eq!(decode("Zm9v\nYmFy").as_deref(), Some(&b"foobar"[..]));
        assert!(decode("Zm9").is_none());
        assert!(decode("Zm=v").is_none());
    }
}
