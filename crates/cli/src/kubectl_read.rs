//! A file's bytes as `kubectl apply -f` reads them: cli-runtime `pkg/resource/visitor.go`
//! `FileVisitor.Visit` wraps the file (and standard input) in
//! `transform.NewReader(f, unicode.BOMOverride(unicode.UTF8.NewDecoder()))`
//! (golang.org/x/text `encoding/unicode`):
//!
//! * a byte-order mark switches the decoding: `EF BB BF` UTF-8, `FE FF` UTF-16BE, `FF FE`
//!   UTF-16LE; the mark itself is dropped (`bomOverride.Transform`);
//! * otherwise, and after a UTF-8 mark, `utf8Decoder.Transform`: every ill-formed sequence
//!   becomes U+FFFD, one per maximal subpart (the W3C way, not Go's one per byte);
//! * UTF-16 (`utf16Decoder.Transform`): an unpaired surrogate becomes U+FFFD, and so does a
//!   final odd byte.
//!
//! The YAML decoder after it never sees invalid UTF-8, so the file is never refused for its
//! encoding: what the studio reports is where the text kubectl sends differs from the bytes.

/// The encoding `BOMOverride` chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 without a byte-order mark (the fallback decoder).
    Utf8,
    /// UTF-8 with its byte-order mark.
    Utf8Bom,
    /// UTF-16, little-endian (`FF FE`).
    Utf16Le,
    /// UTF-16, big-endian (`FE FF`).
    Utf16Be,
}

/// One place where the decoder wrote U+FFFD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// Byte offset of the U+FFFD in the decoded text.
    pub offset: usize,
    /// The bytes it replaced (UTF-16: the code unit's bytes, as in the file).
    pub bytes: Vec<u8>,
}

/// The decoded text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text kubectl reads.
    pub text: String,
    /// The encoding.
    pub encoding: Encoding,
    /// Where ill-formed input became U+FFFD.
    pub replacements: Vec<Replacement>,
}

/// Decodes `bytes` as kubectl's file reader does.
pub fn decode(bytes: &[u8]) -> Decoded {
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => utf8(rest, Encoding::Utf8Bom),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, Encoding::Utf16Be),
        [0xFF, 0xFE, rest @ ..] => utf16(rest, Encoding::Utf16Le),
        _ => utf8(bytes, Encoding::Utf8),
    }
}

/// `utf8Decoder.Transform`: valid sequences copied, each maximal subpart of an ill-formed
/// one replaced by U+FFFD (`utf8internal` accept ranges: the second byte's range depends on
/// the first, later continuation bytes are `80..=BF`).
fn utf8(bytes: &[u8], encoding: Encoding) -> Decoded {
    let mut text = String::with_capacity(bytes.len());
    let mut replacements = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                break;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                // `valid_up_to` is a char boundary: this never fails.
                text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                // Rust's `error_len` is the maximal subpart (Unicode's "substitution of
                // maximal subparts", the same W3C rule x/text follows); `None`: the input
                // ends inside a sequence, which at EOF is one subpart too.
                let size = e.error_len().unwrap_or(after.len()).max(1);
                let (bad, tail) = after.split_at(size.min(after.len()));
                replacements.push(Replacement {
                    offset: text.len(),
                    bytes: bad.to_vec(),
                });
                text.push('\u{FFFD}');
                rest = tail;
            }
        }
    }
    Decoded {
        text,
        encoding,
        replacements,
    }
}

/// `utf16Decoder.Transform`: code units in the mark's order; a high surrogate followed by a
/// low one is a pair; any other surrogate, and a last odd byte, is U+FFFD.
fn utf16(bytes: &[u8], encoding: Encoding) -> Decoded {
    let unit = |pair: &[u8]| -> u16 {
        let (a, b) = (
            u16::from(pair.first().copied().unwrap_or(0)),
            u16::from(pair.get(1).copied().unwrap_or(0)),
        );
        if encoding == Encoding::Utf16Be {
            (a << 8) | b
        } else {
            (b << 8) | a
        }
    };
    let chunks: Vec<&[u8]> = bytes.chunks(2).collect();
    let mut text = String::with_capacity(bytes.len());
    let mut replacements = Vec::new();
    let mut i = 0;
    while let Some(chunk) = chunks.get(i) {
        if chunk.len() < 2 {
            replacements.push(Replacement {
                offset: text.len(),
                bytes: chunk.to_vec(),
            });
            text.push('\u{FFFD}');
            break;
        }
        let u = unit(chunk);
        let next = chunks.get(i + 1).filter(|c| c.len() == 2).map(|c| unit(c));
        match (u, next) {
            (0xD800..=0xDBFF, Some(lo @ 0xDC00..=0xDFFF)) => {
                let c = 0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                text.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                i += 2;
            }
            (0xD800..=0xDFFF, _) => {
                replacements.push(Replacement {
                    offset: text.len(),
                    bytes: chunk.to_vec(),
                });
                text.push('\u{FFFD}');
                i += 1;
            }
            _ => {
                text.push(char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}'));
                i += 1;
            }
        }
    }
    Decoded {
        text,
        encoding,
        replacements,
    }
}

/// The bytes as Go's `%x` with spaces (`ff fe`), for messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(s: &str) -> Vec<u8> {
        let mut b = vec![0xFF, 0xFE];
        b.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        b
    }

    fn be(s: &str) -> Vec<u8> {
        let mut b = vec![0xFE, 0xFF];
        b.extend(s.encode_utf16().flat_map(u16::to_be_bytes));
        b
    }

    /// golang.org/x/text `encoding/unicode`: `BOMOverride` and the UTF-8 and UTF-16
    /// decoders, as cli-runtime `FileVisitor.Visit` installs them.
    #[test]
    fn decodes_as_kubectls_file_reader() {
        let text = "kind: Widget\nname: café 👑\n";
        let mut bom8 = vec![0xEF, 0xBB, 0xBF];
        bom8.extend(text.as_bytes());
        type Case = (Vec<u8>, &'static str, Encoding, Vec<(usize, Vec<u8>)>);
        let cases: Vec<Case> = vec![
            (text.as_bytes().to_vec(), text, Encoding::Utf8, vec![]),
            (bom8, text, Encoding::Utf8Bom, vec![]),
            (le(text), text, Encoding::Utf16Le, vec![]),
            (be(text), text, Encoding::Utf16Be, vec![]),
            // A stray byte, a truncated sequence, an overlong form (C0 is never a starter),
            // a surrogate encoded in UTF-8 (ED A0: A0 is outside ED's second-byte range).
            (
                b"a: \xff\n".to_vec(),
                "a: \u{FFFD}\n",
                Encoding::Utf8,
                vec![(3, vec![0xFF])],
            ),
            (
                b"a: \xe2\x82\n".to_vec(),
                "a: \u{FFFD}\n",
                Encoding::Utf8,
                vec![(3, vec![0xE2, 0x82])],
            ),
            (
                b"\xc0\xaf".to_vec(),
                "\u{FFFD}\u{FFFD}",
                Encoding::Utf8,
                vec![(0, vec![0xC0]), (3, vec![0xAF])],
            ),
            (
                b"\xed\xa0\x80x".to_vec(),
                "\u{FFFD}\u{FFFD}\u{FFFD}x",
                Encoding::Utf8,
                vec![(0, vec![0xED]), (3, vec![0xA0]), (6, vec![0x80])],
            ),
            // Truncated at the end: one subpart.
            (
                b"x\xf0\x9f\x91".to_vec(),
                "x\u{FFFD}",
                Encoding::Utf8,
                vec![(1, vec![0xF0, 0x9F, 0x91])],
            ),
            // UTF-16: a lone high surrogate, a lone low one, a final odd byte.
            (
                vec![0xFF, 0xFE, 0x3D, 0xD8, b'a', 0],
                "\u{FFFD}a",
                Encoding::Utf16Le,
                vec![(0, vec![0x3D, 0xD8])],
            ),
            (
                vec![0xFE, 0xFF, 0xDC, 0x00, 0, b'b', 0x41],
                "\u{FFFD}b\u{FFFD}",
                Encoding::Utf16Be,
                vec![(0, vec![0xDC, 0x00]), (4, vec![0x41])],
            ),
        ];
        for (bytes, want, encoding, replaced) in cases {
            let d = decode(&bytes);
            assert_eq!(d.text, want, "{bytes:x?}");
            assert_eq!(d.encoding, encoding, "{bytes:x?}");
            let got: Vec<(usize, Vec<u8>)> = d
                .replacements
                .into_iter()
                .map(|r| (r.offset, r.bytes))
                .collect();
            assert_eq!(got, replaced, "{bytes:x?}");
        }
    }
}
