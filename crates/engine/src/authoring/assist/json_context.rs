//! Where the cursor is in a JSON text that may be broken or half typed (unclosed strings and
//! brackets, trailing or missing commas): the same [`Context`] as [`super::yaml_context`]
//! gives for YAML, read by a tolerant scan of the document's tokens from its start, not by a
//! parse.
//!
//! A text is read as JSON per document: the document around the cursor (the lines between
//! `---` markers, as the YAML reader splits them) is JSON when its first character other
//! than blanks and `#` comment lines is `{` or `[` ([`is_json`]). A YAML document whose
//! values use flow mappings (`spec: {a: 1}`) starts with a key, so it stays YAML. Several
//! JSON values one after another in one document (`{...} {...}`) are read each on its own:
//! a value that opens at the outermost level starts afresh.

use super::yaml_context::{Context, Place, Seg};

/// The byte range of the document (between `---` marker lines) around `offset`.
pub fn document_range(text: &str, offset: usize) -> (usize, usize) {
    let mut start = 0;
    let mut end = text.len();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let is_marker = line.starts_with("---") || line.starts_with("...");
        if is_marker {
            if pos + line.len() <= offset || (pos < offset && pos + line.len() > offset) {
                start = pos + line.len();
            } else if pos >= offset {
                end = pos;
                break;
            }
        }
        pos += line.len();
    }
    (start.min(end), end)
}

/// Whether the document around byte `offset` of `text` is JSON: its first character other
/// than blanks and `#` comment lines is `{` or `[`.
pub fn is_json(text: &str, offset: usize) -> bool {
    let (start, end) = document_range(text, offset);
    let doc = text.get(start..end).unwrap_or("");
    for line in doc.lines() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return t.starts_with(['{', '[']);
    }
    false
}

/// What the scan expects next in an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    /// A key (after `{` or `,`).
    Key,
    /// The `:` after a key.
    Colon,
    /// A value (after `:`, or an array's element).
    Value,
    /// A `,` or the closing bracket (after a value).
    Comma,
}

#[derive(Clone, Debug)]
enum Frame {
    Obj {
        /// The current key and its range (quotes included).
        key: Option<(String, usize, usize)>,
        /// The keys seen so far.
        keys: Vec<String>,
        want: Want,
    },
    Arr {
        index: usize,
        want: Want,
    },
}

impl Frame {
    fn want(&self) -> Want {
        match self {
            Frame::Obj { want, .. } | Frame::Arr { want, .. } => *want,
        }
    }

    fn set_want(&mut self, w: Want) {
        match self {
            Frame::Obj { want, .. } | Frame::Arr { want, .. } => *want = w,
        }
    }
}

/// Where the scan stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stop {
    /// Between tokens.
    Between,
    /// Inside a string whose opening quote is at this offset.
    InString(usize),
    /// Inside a bare word (a number, `true`, a key without quotes) starting here.
    InWord(usize),
}

/// The scan of a document's tokens up to an offset.
#[derive(Debug, Default)]
struct Scan {
    frames: Vec<Frame>,
    /// Top-level `"key": "string"` pairs of the outermost object.
    top: Vec<(String, String)>,
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'+' | b'$' | b'/')
}

/// The end of the string whose opening quote is at `q` (the offset after its closing quote),
/// or `None` when it is not closed before `limit` or the line's end.
fn string_end(bytes: &[u8], q: usize, limit: usize) -> Option<usize> {
    let mut i = q + 1;
    while i < limit {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Decodes a JSON string's content (without quotes), tolerant of a cut-off escape at the end:
/// the decoded text, and for each of its bytes the offset in `raw` where it came from (plus one
/// entry for the end).
pub fn decode(raw: &str) -> Option<(String, Vec<usize>)> {
    let mut out = String::new();
    let mut map = Vec::new();
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let decoded = if c == '\\' {
            let (_, e) = chars.next()?;
            match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'b' => '\u{8}',
                'f' => '\u{c}',
                '/' => '/',
                '\\' => '\\',
                '"' => '"',
                'u' => {
                    let mut hex = String::new();
                    for _ in 0..4 {
                        hex.push(chars.next()?.1);
                    }
                    char::from_u32(u32::from_str_radix(&hex, 16).ok()?).unwrap_or('\u{fffd}')
                }
                _ => return None,
            }
        } else {
            c
        };
        for _ in 0..decoded.len_utf8() {
            map.push(i);
        }
        out.push(decoded);
    }
    map.push(raw.len());
    Some((out, map))
}

impl Scan {
    fn top(&mut self) -> Option<&mut Frame> {
        self.frames.last_mut()
    }

    /// A value (scalar or the opening of a container) is read where the top frame is.
    fn value_read(&mut self) {
        if let Some(f) = self.top() {
            match f {
                Frame::Obj { want, .. } if *want == Want::Value => *want = Want::Comma,
                Frame::Arr { want, .. } => *want = Want::Comma,
                _ => {}
            }
        }
    }

    /// A string token from `q` to `end` (after its closing quote), content `s`.
    fn string(&mut self, s: String, q: usize, end: usize) {
        let depth = self.frames.len();
        let mut top_pair = None;
        match self.frames.last_mut() {
            // After a value without a comma (one forgotten): a key too.
            Some(Frame::Obj { key, keys, want }) if matches!(*want, Want::Key | Want::Comma) => {
                keys.push(s.clone());
                *key = Some((s, q, end));
                *want = Want::Colon;
                return;
            }
            Some(Frame::Obj {
                key: Some((k, _, _)),
                want: Want::Value,
                ..
            }) if depth == 1 => top_pair = Some((k.clone(), s)),
            _ => {}
        }
        self.top.extend(top_pair);
        self.value_read();
    }

    /// Scans `text[from..limit]`, stopping at `limit`.
    fn run(&mut self, text: &str, from: usize, limit: usize) -> Stop {
        let bytes = text.as_bytes();
        let mut i = from;
        while i < limit {
            let Some(&b) = bytes.get(i) else { break };
            match b {
                b'{' | b'[' => {
                    if self.frames.is_empty() {
                        self.top.clear();
                    } else {
                        self.value_read();
                    }
                    self.frames.push(if b == b'{' {
                        Frame::Obj {
                            key: None,
                            keys: Vec::new(),
                            want: Want::Key,
                        }
                    } else {
                        Frame::Arr {
                            index: 0,
                            want: Want::Value,
                        }
                    });
                    i += 1;
                }
                b'}' | b']' => {
                    let obj = b == b'}';
                    // Tolerant: close up to the nearest frame of the same kind.
                    if let Some(at) = self
                        .frames
                        .iter()
                        .rposition(|f| matches!(f, Frame::Obj { .. }) == obj)
                    {
                        self.frames.truncate(at);
                    }
                    i += 1;
                }
                b',' => {
                    match self.top() {
                        Some(Frame::Obj { key, want, .. }) => {
                            *key = None;
                            *want = Want::Key;
                        }
                        Some(Frame::Arr { index, want }) => {
                            if *want == Want::Comma {
                                *index += 1;
                            }
                            *want = Want::Value;
                        }
                        None => {}
                    }
                    i += 1;
                }
                b':' => {
                    if let Some(f) = self.top() {
                        if matches!(f, Frame::Obj { .. }) {
                            f.set_want(Want::Value);
                        }
                    }
                    i += 1;
                }
                b'"' => match string_end(bytes, i, limit) {
                    Some(end) => {
                        let raw = text.get(i + 1..end - 1).unwrap_or("");
                        let s = decode(raw).map_or_else(|| raw.to_owned(), |(s, _)| s);
                        self.string(s, i, end);
                        i = end;
                    }
                    None => {
                        // Unclosed: the cursor's string, or a broken line above.
                        let nl = text.get(i..limit).and_then(|t| t.find('\n')).map(|n| i + n);
                        match nl {
                            Some(nl) => {
                                let raw = text.get(i + 1..nl).unwrap_or("");
                                self.string(raw.to_owned(), i, nl);
                                i = nl;
                            }
                            None => return Stop::InString(i),
                        }
                    }
                },
                b'#' if self.frames.is_empty() => {
                    // A comment line before the document's value.
                    i = text
                        .get(i..limit)
                        .and_then(|t| t.find('\n'))
                        .map_or(limit, |n| i + n);
                }
                b if word_byte(b) => {
                    let start = i;
                    while i < limit && bytes.get(i).is_some_and(|&c| word_byte(c)) {
                        i += 1;
                    }
                    if i >= limit {
                        return Stop::InWord(start);
                    }
                    let w = text.get(start..i).unwrap_or("").to_owned();
                    if self.frames.last().is_some_and(|f| {
                        matches!(f, Frame::Obj { .. })
                            && matches!(f.want(), Want::Key | Want::Comma)
                    }) {
                        // A key without quotes (YAML flow style): read it as a key.
                        self.string(w, start, i);
                    } else {
                        self.value_read();
                    }
                }
                _ => i += 1,
            }
        }
        Stop::Between
    }

    /// The path of the container the top frame is (its own step not included).
    fn path(&self) -> Vec<Seg> {
        let n = self.frames.len();
        self.frames
            .iter()
            .take(n.saturating_sub(1))
            .map(|f| match f {
                Frame::Obj { key, .. } => {
                    Seg::Key(key.as_ref().map(|(k, _, _)| k.clone()).unwrap_or_default())
                }
                Frame::Arr { index, .. } => Seg::Item(*index),
            })
            .collect()
    }
}

/// The cursor's context in a JSON text, with what JSON completion needs beyond the YAML
/// reader's [`Context`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonContext {
    /// Path, key or value, the word typed (without its quote), where it starts, the keys
    /// already in the object.
    pub ctx: Context,
    /// The opening quote's offset, when the cursor is inside a string.
    pub quote: Option<usize>,
    /// Where the replaced text ends: the cursor, or after the closing quote of the string
    /// the cursor is in when only word characters lie between them.
    pub end: usize,
    /// A `:` follows the key being typed (so completing it does not add one).
    pub colon_follows: bool,
    /// Where a `,` goes when the key being typed follows a member without one (the end of
    /// that member's value).
    pub comma_at: Option<usize>,
}

/// The keys after `from` in the object the scan is in (up to its closing `}`).
fn keys_after(text: &str, from: usize, end: usize) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = from;
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            b'"' => {
                let Some(e) = string_end(bytes, i, end) else {
                    i += 1;
                    continue;
                };
                if depth == 0 {
                    let after = text.get(e..end).unwrap_or("").trim_start();
                    if after.starts_with(':') {
                        let raw = text.get(i + 1..e - 1).unwrap_or("");
                        out.push(decode(raw).map_or_else(|| raw.to_owned(), |(s, _)| s));
                    }
                }
                i = e;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The cursor's context at byte `offset` of a JSON `text` (the document around it), or
/// `None` when it is not at a key or a value of an object (an array's element, outside any
/// value, not a character boundary).
pub fn context(text: &str, offset: usize) -> Option<JsonContext> {
    text.get(..offset)?;
    let (doc_start, doc_end) = document_range(text, offset);
    let mut scan = Scan::default();
    let stop = scan.run(text, doc_start, offset);
    let (word_from, quote) = match stop {
        Stop::Between => (offset, None),
        Stop::InWord(s) => (s, None),
        Stop::InString(q) => (q + 1, Some(q)),
    };
    let partial = text.get(word_from..offset)?.to_owned();
    let bytes = text.as_bytes();
    // The rest of the string after the cursor, when it is a word and its closing quote.
    let mut end = offset;
    if quote.is_some() {
        let mut j = offset;
        while bytes.get(j).is_some_and(|&c| word_byte(c)) {
            j += 1;
        }
        if bytes.get(j) == Some(&b'"') {
            end = j + 1;
        }
    } else {
        while bytes.get(end).is_some_and(|&c| word_byte(c)) && end < doc_end {
            end += 1;
        }
    }
    let colon_follows = text
        .get(end..doc_end)
        .is_some_and(|t| t.trim_start_matches([' ', '\t']).starts_with(':'));
    let mut path = scan.path();
    let (key, keys, want) = match scan.frames.last() {
        Some(Frame::Obj { key, keys, want }) => (key, keys, want),
        // An item of an array that is a key's value: read as that key's value (completion
        // offers what the items may be).
        Some(Frame::Arr {
            want: Want::Value, ..
        }) => {
            let Some(Seg::Key(k)) = path.pop() else {
                return None;
            };
            return Some(JsonContext {
                ctx: Context {
                    path,
                    place: Place::Value {
                        key: k,
                        start: quote.unwrap_or(word_from),
                    },
                    partial,
                    from: word_from,
                    siblings: Vec::new(),
                },
                quote,
                end,
                colon_follows,
                comma_at: None,
            });
        }
        _ => return None,
    };
    let place = match want {
        Want::Key | Want::Comma => Place::Key,
        Want::Value => Place::Value {
            key: key.as_ref().map(|(k, _, _)| k.clone()).unwrap_or_default(),
            start: quote.unwrap_or(word_from),
        },
        Want::Colon => return None,
    };
    // After a value with no comma yet (`{"a": 1 "b|`): the comma goes after that value.
    let comma_at = (*want == Want::Comma)
        .then(|| text.get(..quote.unwrap_or(word_from)))
        .flatten()
        .map(|t| t.trim_end().len());
    let mut siblings = keys.clone();
    if place == Place::Key {
        // After the word under the cursor (and its closing quote) to the object's end.
        let after = if quote.is_some() {
            string_end(bytes, quote.unwrap_or(0), doc_end).unwrap_or(end)
        } else {
            end
        };
        siblings.extend(keys_after(text, after, doc_end));
    }
    Some(JsonContext {
        ctx: Context {
            path,
            place,
            partial,
            from: word_from,
            siblings,
        },
        quote,
        end,
        colon_follows,
        comma_at,
    })
}

/// The key under byte `offset` (on a key, or in its value when the value is a string or a
/// word), with the path of its object and the key's byte range (quotes included).
pub fn key_at(text: &str, offset: usize) -> Option<(Vec<Seg>, String, usize, usize)> {
    let (doc_start, doc_end) = document_range(text, offset);
    let bytes = text.as_bytes();
    // On an opening quote: inside its string.
    let at = if bytes.get(offset) == Some(&b'"') && {
        let mut s = Scan::default();
        s.run(text, doc_start, offset) == Stop::Between
    } {
        offset + 1
    } else {
        offset
    };
    let mut scan = Scan::default();
    let stop = scan.run(text, doc_start, at);
    let path = scan.path();
    let Some(Frame::Obj { key, want, .. }) = scan.frames.last() else {
        return None;
    };
    match (stop, want) {
        (Stop::InString(q), Want::Key) => {
            let e = string_end(bytes, q, doc_end)?;
            let raw = text.get(q + 1..e - 1)?;
            let k = decode(raw).map_or_else(|| raw.to_owned(), |(s, _)| s);
            Some((path, k, q, e))
        }
        (Stop::InWord(s), Want::Key) => {
            let mut e = at;
            while bytes.get(e).is_some_and(|&c| word_byte(c)) {
                e += 1;
            }
            Some((path, text.get(s..e)?.to_owned(), s, e))
        }
        (Stop::InString(_) | Stop::InWord(_), Want::Value) => {
            let (k, s, e) = key.clone()?;
            Some((path, k, s, e))
        }
        _ => None,
    }
}

/// The value of the top-level `"key": "value"` of the JSON document around `offset`.
pub fn top_level_string(text: &str, offset: usize, key: &str) -> Option<String> {
    let (start, end) = document_range(text, offset);
    let mut scan = Scan::default();
    scan.run(text, start, end);
    scan.top
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .filter(|v| !v.is_empty())
}

/// The end of the JSON value starting at `start` (a string, a word, or a bracketed value,
/// strings inside skipped), or `None` when it does not close.
pub fn value_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    match bytes.get(start)? {
        b'"' => string_end(bytes, start, text.len()),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    b'"' => {
                        i = string_end(bytes, i, text.len())?;
                        continue;
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        &b if word_byte(b) => {
            let mut i = start;
            while bytes.get(i).is_some_and(|&c| word_byte(c)) {
                i += 1;
            }
            Some(i)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> (JsonContext, String) {
        let offset = text.find('|').unwrap();
        let t = text.replacen('|', "", 1);
        (context(&t, offset).unwrap(), t)
    }

    fn keys(c: &Context) -> Vec<String> {
        c.path
            .iter()
            .map(|s| match s {
                Seg::Key(k) => k.clone(),
                Seg::Item(n) => format!("[{n}]"),
            })
            .collect()
    }

    #[test]
    fn paths_and_places_of_half_typed_json() {
        // (text, path, value of, partial, opening quote typed)
        type Case<'a> = (&'a str, &'a [&'a str], Option<&'a str>, &'a str, bool);
        let cases: &[Case] = &[
            ("{|", &[], None, "", false),
            ("{\"spec\": {|", &["spec"], None, "", false),
            ("{\"spec\": {\"a\": 1, |", &["spec"], None, "", false),
            ("{\"spec\": {\"a\": 1,\n  \"re|", &["spec"], None, "re", true),
            ("{\"spec\": {\"a\": 1,\n  re|", &["spec"], None, "re", false),
            ("{\"spec\": {\"mode\": |", &["spec"], Some("mode"), "", false),
            ("{\"spec\": {\"mode\": \"Fa|", &["spec"], Some("mode"), "Fa", true),
            ("{\"spec\": {\"paused\": tr|", &["spec"], Some("paused"), "tr", false),
            // Trailing commas and an unclosed string on a line above.
            ("{\"a\": [1, 2,],\n \"b\": \"x,\n \"spec\": {|", &["spec"], None, "", false),
            // An array of objects: the item's index.
            (
                "{\"spec\": {\"versions\": [{\"name\": \"v1\"}, {\"na|",
                &["spec", "versions", "[1]"],
                None,
                "na",
                true,
            ),
            (
                "{\"spec\": {\"versions\": [{\"name\": \"v1\"},\n {\"schema\": {\"openAPIV3Schema\": {\"ty|",
                &["spec", "versions", "[1]", "schema", "openAPIV3Schema"],
                None,
                "ty",
                true,
            ),
            // Closed brackets before: back at the outer object.
            ("{\"metadata\": {\"name\": \"x\"}, |", &[], None, "", false),
            // A missing comma after a value: still a key place.
            ("{\"a\": 1\n |", &[], None, "", false),
            // Several documents: the cursor's.
            ("{\"a\": {\n---\n{\"spec\": {|", &["spec"], None, "", false),
            // Two values in one document, one after the other.
            ("{\"a\": {}}\n{\"spec\": {|", &["spec"], None, "", false),
            // Escapes in strings before.
            ("{\"a\": \"q\\\"{\", \"spec\": {|", &["spec"], None, "", false),
        ];
        for (text, path, value, partial, quoted) in cases {
            let (c, _) = at(text);
            assert_eq!(keys(&c.ctx), *path, "{text:?}");
            let v = match &c.ctx.place {
                Place::Value { key, .. } => Some(key.as_str()),
                Place::Key => None,
            };
            assert_eq!(v, *value, "{text:?}");
            assert_eq!(c.ctx.partial, *partial, "{text:?}");
            assert_eq!(c.quote.is_some(), *quoted, "{text:?}");
        }
        // An array's element: a value of the array's key.
        let text = "{\"s\": {\"tags\": [\"a\", \"b";
        let c = context(text, text.len()).unwrap();
        assert_eq!(c.ctx.path, vec![Seg::Key("s".into())]);
        assert_eq!(
            c.ctx.place,
            Place::Value {
                key: "tags".into(),
                start: 21
            }
        );
        assert_eq!(c.ctx.partial, "b");
        // The place between a key and its colon: nothing.
        assert!(context("{\"a\" ", 5).is_none());
    }

    #[test]
    fn replaced_range_and_siblings() {
        let (c, t) =
            at("{\"spec\": {\"a\": 1, \"re|pl\": 2, \"b\": {\"c\": 1}, \"d\": 3}, \"e\": 1}");
        assert_eq!(t.get(c.quote.unwrap()..c.end), Some("\"repl\""));
        assert!(c.colon_follows);
        assert_eq!(c.ctx.siblings, vec!["a", "b", "d"]);
        let (c, t) = at("{\"spec\": {\"mode\": \"F|\"}}");
        assert_eq!(t.get(c.ctx.from..c.end), Some("F\""));
        assert!(!c.colon_follows);
        let Place::Value { start, .. } = c.ctx.place else {
            panic!()
        };
        assert_eq!(t.get(start..start + 1), Some("\""));
    }

    #[test]
    fn json_is_decided_per_document() {
        assert!(is_json("{\"a\": 1}", 3));
        assert!(is_json("\n  # c\n[1]", 8));
        assert!(!is_json("spec: {a: 1}\n", 9));
        let t = "a: 1\n---\n{\"b\": 1}\n---\nc: {d: 1}\n";
        assert!(!is_json(t, 2));
        assert!(is_json(t, t.find("\"b").unwrap()));
        assert!(!is_json(t, t.find("d:").unwrap()));
    }

    #[test]
    fn keys_under_the_pointer() {
        let t = "{\"spec\": {\"replicas\": 3, \"mode\": \"Fast\"}}";
        let (path, key, s, e) = key_at(t, t.find("plicas").unwrap()).unwrap();
        assert_eq!(path, vec![Seg::Key("spec".into())]);
        assert_eq!(
            (key.as_str(), t.get(s..e)),
            ("replicas", Some("\"replicas\""))
        );
        // On the opening quote, and in the value.
        let (_, key, _, _) = key_at(t, t.find("\"replicas").unwrap()).unwrap();
        assert_eq!(key, "replicas");
        let (_, key, s, e) = key_at(t, t.find("Fast").unwrap() + 1).unwrap();
        assert_eq!((key.as_str(), t.get(s..e)), ("mode", Some("\"mode\"")));
        assert!(key_at(t, t.find(": 3").unwrap()).is_none());
    }

    #[test]
    fn top_level_strings_and_value_ends() {
        let t = "{\"kind\": \"W\", \"spec\": {\"apiVersion\": \"no\"}, \"apiVersion\": \"g/v2\"}";
        assert_eq!(
            top_level_string(t, 0, "apiVersion").as_deref(),
            Some("g/v2")
        );
        assert_eq!(top_level_string(t, 0, "kind").as_deref(), Some("W"));
        let v = t.find("{\"api").unwrap();
        assert_eq!(
            t.get(v..value_end(t, v).unwrap()),
            Some("{\"apiVersion\": \"no\"}")
        );
        assert_eq!(value_end("[1, \"]\", 2] x", 0), Some(11));
        assert_eq!(value_end("true,", 0), Some(4));
    }

    #[test]
    fn decoding_maps_back_to_the_text() {
        let (s, map) = decode(r#"a\"b\u00e9"#).unwrap();
        assert_eq!(s, "a\"bé");
        assert_eq!(map, vec![0, 1, 3, 4, 4, 10]);
        assert!(decode("a\\").is_none());
    }
}
