//! Where the cursor is in a YAML text that may be broken or half typed: the path of keys
//! (and list items) above it, read from the indentation of the lines above, not from a
//! parse, and whether it is at a key or in a key's value.

/// One step of a path: a mapping key or a list item (its 0-based index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    /// `key:`.
    Key(String),
    /// `- ` item number n of its list.
    Item(usize),
}

impl Seg {
    /// The key, when this step is one.
    pub fn key(&self) -> Option<&str> {
        match self {
            Seg::Key(k) => Some(k),
            Seg::Item(_) => None,
        }
    }
}

/// Whether the cursor is where a key goes or in a key's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Where a key of the mapping at [`Context::path`] goes.
    Key,
    /// In the value of `key` (a key of the mapping at [`Context::path`]); the value's text
    /// starts at byte `start` (after `: `, or on the line after a block scalar's indicator).
    Value {
        /// The key.
        key: String,
        /// Where the value's text starts.
        start: usize,
    },
}

/// The cursor's context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// The path of the mapping the cursor is in.
    pub path: Vec<Seg>,
    /// Key or value.
    pub place: Place,
    /// The word being typed (before the cursor).
    pub partial: String,
    /// Where that word starts (byte offset).
    pub from: usize,
    /// The keys the mapping has already (on the lines around the cursor).
    pub siblings: Vec<String>,
}

/// A line's shape: its list dashes, where its content starts, its key and value.
#[derive(Debug, Default)]
struct Shape<'a> {
    /// Columns of the `- ` markers.
    dashes: Vec<usize>,
    /// Column where the content after the dashes starts.
    col: usize,
    /// The key, when the content is `key:` or `key: value`.
    key: Option<String>,
    /// The value text after `key:` (trimmed), empty when none.
    value: &'a str,
    /// Whether there is content at all (not blank, not a comment).
    content: bool,
}

fn unquote(k: &str) -> String {
    let k = k.trim();
    let quoted = (k.starts_with('"') && k.ends_with('"') && k.len() >= 2)
        || (k.starts_with('\'') && k.ends_with('\'') && k.len() >= 2);
    if quoted {
        k.get(1..k.len() - 1).unwrap_or(k).to_owned()
    } else {
        k.to_owned()
    }
}

/// The byte index of the colon ending a key in `s` (`key:` then a space or the end).
fn key_colon(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if (b == b'"' || b == b'\'') && i == 0 => quote = Some(b),
            None if b == b'#' && i > 0 && bytes.get(i - 1) == Some(&b' ') => return None,
            None if b == b':' => {
                let next = bytes.get(i + 1);
                if next.is_none() || next == Some(&b' ') || next == Some(&b'\t') {
                    return Some(i);
                }
            }
            None if b == b'{' || b == b'[' => return None,
            None => {}
        }
    }
    None
}

fn shape(line: &str) -> Shape<'_> {
    let mut out = Shape::default();
    let mut col = line.len() - line.trim_start_matches(' ').len();
    let mut rest = line.get(col..).unwrap_or("");
    loop {
        if rest == "-" || rest.starts_with("- ") {
            out.dashes.push(col);
            let after = rest.get(1..).unwrap_or("");
            let spaces = after.len() - after.trim_start_matches(' ').len();
            col += 1 + spaces;
            rest = after.get(spaces..).unwrap_or("");
        } else {
            break;
        }
    }
    out.col = col;
    out.content = !rest.trim().is_empty() && !rest.starts_with('#') || !out.dashes.is_empty();
    if let Some(c) = key_colon(rest) {
        out.key = Some(unquote(rest.get(..c).unwrap_or("")));
        let v = rest.get(c + 1..).unwrap_or("");
        let v = match v.find(" #") {
            Some(h) => v.get(..h).unwrap_or(v),
            None => v,
        };
        out.value = v.trim();
    }
    out
}

fn is_block_indicator(v: &str) -> bool {
    let mut c = v.chars();
    matches!(c.next(), Some('|') | Some('>'))
        && c.all(|c| c == '-' || c == '+' || c.is_ascii_digit())
}

/// Lines of `text` as (start offset, line text without the newline).
fn lines_before(text: &str, line_start: usize) -> impl Iterator<Item = (usize, &str)> {
    let head = text.get(..line_start).unwrap_or("");
    let head = head.strip_suffix('\n').unwrap_or(head);
    let mut end = head.len();
    let mut done = line_start == 0;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let start = head.get(..end)?.rfind('\n').map_or(0, |i| i + 1);
        let line = head.get(start..end)?;
        if start == 0 {
            done = true;
        } else {
            end = start - 1;
        }
        Some((start, line.strip_suffix('\r').unwrap_or(line)))
    })
}

fn is_doc_marker(line: &str) -> bool {
    line.starts_with("---") || line.starts_with("...")
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '$')
}

/// The cursor's context in `text` at byte `offset`, or `None` when `offset` is not a
/// character boundary of the text.
pub fn context(text: &str, offset: usize) -> Option<Context> {
    let before = text.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let prefix = before.get(line_start..)?;
    let me = shape(prefix);
    let partial: String = {
        let mut chars: Vec<char> = prefix.chars().rev().take_while(|&c| word_char(c)).collect();
        chars.reverse();
        chars.into_iter().collect()
    };
    let partial = partial.trim_start_matches(['"', '\'']).to_owned();
    let from = offset - partial.len();
    let mut place = match &me.key {
        Some(k) => {
            let colon = prefix.find(':').unwrap_or(0);
            let after = prefix.get(colon + 1..).unwrap_or("");
            let spaces = after.len() - after.trim_start().len();
            Place::Value {
                key: k.clone(),
                start: line_start + colon + 1 + spaces,
            }
        }
        None => Place::Key,
    };
    // Walk up. `cur`: the column of the mapping the cursor is in; `seq`: the column of the
    // list whose item we are in (its dash), while its owner key is not found yet.
    let mut rev: Vec<Seg> = Vec::new();
    let mut cur = if me.content || me.key.is_some() {
        me.col
    } else {
        prefix.len()
    };
    let mut seq: Option<usize> = None;
    let mut siblings: Vec<String> = Vec::new();
    let mut at_start_level = true;
    if let Some(&d) = me.dashes.last() {
        rev.push(Seg::Item(0));
        seq = Some(d);
        at_start_level = false;
        // A sibling scan is still meaningful for the item's own mapping below.
    }
    let mut first_parent = true;
    for (start, line) in lines_before(text, line_start) {
        if is_doc_marker(line) {
            break;
        }
        let s = shape(line);
        if !s.content {
            continue;
        }
        if let Some(d) = seq {
            // In the list at column d: an earlier item, or the key that owns the list.
            if s.dashes.last() == Some(&d) || s.dashes.contains(&d) {
                if let Some(Seg::Item(n)) = rev.last_mut() {
                    *n += 1;
                }
                continue;
            }
            if s.col <= d && s.dashes.iter().all(|&x| x < d) {
                match &s.key {
                    Some(k) if s.value.is_empty() => {
                        rev.push(Seg::Key(k.clone()));
                        seq = None;
                        cur = s.col;
                        if let Some(&dd) = s.dashes.last() {
                            rev.push(Seg::Item(0));
                            seq = Some(dd);
                        }
                    }
                    _ => {}
                }
            }
            continue;
        }
        if s.col >= cur && s.dashes.iter().all(|&d| d >= cur) {
            // Deeper, or a sibling of the cursor's mapping.
            if s.col == cur && at_start_level {
                if let Some(k) = &s.key {
                    siblings.push(k.clone());
                }
            }
            continue;
        }
        if s.col == cur {
            // A key of this mapping, on the line of the item holding it (`- key: v`).
            if let Some(k) = &s.key {
                if at_start_level {
                    siblings.push(k.clone());
                }
            }
        }
        if s.col < cur {
            match &s.key {
                Some(k) if first_parent && is_block_indicator(s.value) && place == Place::Key => {
                    // The cursor is inside this key's block scalar.
                    let next = text
                        .get(start..)
                        .and_then(|t| t.find('\n'))
                        .map(|i| start + i + 1);
                    place = Place::Value {
                        key: k.clone(),
                        start: next.unwrap_or(line_start),
                    };
                    cur = s.col;
                    siblings.clear();
                    first_parent = false;
                    if let Some(&dd) = s.dashes.last() {
                        at_start_level = false;
                        rev.push(Seg::Item(0));
                        seq = Some(dd);
                    }
                    continue;
                }
                Some(k) if s.value.is_empty() || s.value.starts_with('&') => {
                    rev.push(Seg::Key(k.clone()));
                    cur = s.col;
                }
                _ => {
                    // A scalar line less indented: broken text; keep looking.
                    if s.dashes.is_empty() {
                        continue;
                    }
                }
            }
        }
        first_parent = false;
        at_start_level = false;
        if let Some(&dd) = s.dashes.iter().rev().find(|&&d| d < cur || s.col >= cur) {
            rev.push(Seg::Item(0));
            seq = Some(dd);
        }
    }
    // The keys below the cursor in the same mapping.
    if place == Place::Key {
        let line_end = text
            .get(offset..)
            .and_then(|t| t.find('\n'))
            .map_or(text.len(), |i| offset + i);
        let own_col = if me.content || me.key.is_some() {
            me.col
        } else {
            prefix.len()
        };
        for line in text.get(line_end..).unwrap_or("").split('\n').skip(1) {
            if is_doc_marker(line) {
                break;
            }
            let s = shape(line);
            if !s.content {
                continue;
            }
            if s.col < own_col || s.dashes.iter().any(|&d| d < own_col) {
                break;
            }
            if s.col == own_col && s.dashes.is_empty() {
                if let Some(k) = s.key {
                    siblings.push(k);
                }
            }
        }
    }
    rev.reverse();
    Some(Context {
        path: rev,
        place,
        partial,
        from,
        siblings,
    })
}

/// The key under byte `offset` (the cursor on a key's name or in its value), with the path
/// of its mapping and the key's byte range.
pub fn key_at(text: &str, offset: usize) -> Option<(Vec<Seg>, String, usize, usize)> {
    let line_start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let line_end = text
        .get(offset..)?
        .find('\n')
        .map_or(text.len(), |i| offset + i);
    let line = text.get(line_start..line_end)?;
    let s = shape(line);
    let key = s.key?;
    let key_start = line_start + s.col;
    let colon = key_colon(line.get(s.col..)?)?;
    // Context at the end of the key: the mapping's path.
    let ctx = context(text, key_start)?;
    Some((ctx.path, key, key_start, key_start + colon))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Context {
        let offset = text.find('|').unwrap();
        let t = text.replacen('|', "", 1);
        context(&t, offset).unwrap()
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
    fn paths_from_indentation() {
        let cases: &[(&str, &[&str], Option<&str>, &str)] = &[
            ("spec:\n  rep|", &["spec"], None, "rep"),
            ("spec:\n  a: 1\n  |", &["spec"], None, ""),
            ("spec:\n  mode: Fa|", &["spec"], Some("mode"), "Fa"),
            (
                "spec:\n  versions:\n  - name: v1\n  - name: v2\n    sch|",
                &["spec", "versions", "[1]"],
                None,
                "sch",
            ),
            (
                "spec:\n  versions:\n    - name: v1\n      schema:\n        openAPIV3Schema:\n          t|",
                &["spec", "versions", "[0]", "schema", "openAPIV3Schema"],
                None,
                "t",
            ),
            ("spec:\n  items:\n  - na|", &["spec", "items", "[0]"], None, "na"),
            ("spec:\n  items:\n  - a: 1\n  - |", &["spec", "items", "[1]"], None, ""),
            ("a: 1\n---\nspec:\n  x|", &["spec"], None, "x"),
            ("spec:\n  broken: [\n  |", &["spec"], None, ""),
            (
                "x-kubernetes-validations:\n- rule: >-\n    self.a.|",
                &["x-kubernetes-validations", "[0]"],
                Some("rule"),
                "self.a.",
            ),
        ];
        for (text, path, value, partial) in cases {
            let c = at(text);
            assert_eq!(keys(&c), *path, "{text:?}");
            let v = match &c.place {
                Place::Value { key, .. } => Some(key.as_str()),
                Place::Key => None,
            };
            assert_eq!(v, *value, "{text:?}");
            assert_eq!(c.partial, *partial, "{text:?}");
        }
    }

    #[test]
    fn siblings_above_and_below() {
        let c = at("spec:\n  a: 1\n  |\n  b:\n    c: 2\nother: 1\n");
        assert_eq!(c.siblings, vec!["a".to_owned(), "b".to_owned()]);
    }

    #[test]
    fn key_under_the_pointer() {
        let t = "spec:\n  replicas: 3\n";
        let (path, key, s, e) = key_at(t, t.find("licas").unwrap()).unwrap();
        assert_eq!(path, vec![Seg::Key("spec".into())]);
        assert_eq!(
            (key.as_str(), t.get(s..e).unwrap()),
            ("replicas", "replicas")
        );
    }
}
