//! Paths of the mapping format (`.a.b`, `['key.with.dots']`, `[N]`): reading, printing, and
//! getting, setting and removing the value a path names.

use super::*;

/// One step of a mapping path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// An object field.
    Key(String),
    /// A list element.
    Index(usize),
}

/// Parses a mapping path (`.a.b['x.y'][0]`).
pub fn parse_path(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    if chars.first() != Some(&'.') && chars.first() != Some(&'[') {
        return Err(format!("path {text:?} must start with '.'"));
    }
    while let Some(&c) = chars.get(i) {
        match c {
            '.' => {
                i += 1;
                let start = i;
                while let Some(&d) = chars.get(i) {
                    if d == '.' || d == '[' {
                        break;
                    }
                    i += 1;
                }
                let name: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                if name.is_empty() {
                    return Err(format!("path {text:?} has an empty field name"));
                }
                if name.contains(']') {
                    return Err(format!("path {text:?} has an unexpected ']'"));
                }
                steps.push(Step::Key(name));
            }
            '[' => {
                i += 1;
                match chars.get(i) {
                    Some('\'') => {
                        i += 1;
                        let mut key = String::new();
                        loop {
                            match chars.get(i) {
                                None => {
                                    return Err(format!("path {text:?} has an unterminated quote"))
                                }
                                Some('\\') => {
                                    match chars.get(i + 1) {
                                        Some(&e @ ('\'' | '\\')) => key.push(e),
                                        _ => {
                                            return Err(format!(
                                            "path {text:?}: only \\' and \\\\ escapes are allowed"
                                        ))
                                        }
                                    }
                                    i += 2;
                                }
                                Some('\'') => {
                                    i += 1;
                                    break;
                                }
                                Some(&d) => {
                                    key.push(d);
                                    i += 1;
                                }
                            }
                        }
                        if chars.get(i) != Some(&']') {
                            return Err(format!("path {text:?}: expected ']' after a quoted key"));
                        }
                        i += 1;
                        steps.push(Step::Key(key));
                    }
                    _ => {
                        let start = i;
                        while chars.get(i).is_some_and(char::is_ascii_digit) {
                            i += 1;
                        }
                        let digits: String = chars.get(start..i).unwrap_or(&[]).iter().collect();
                        if digits.is_empty() || chars.get(i) != Some(&']') {
                            return Err(format!(
                                "path {text:?}: expected a list index or a quoted key inside []"
                            ));
                        }
                        i += 1;
                        let n = digits
                            .parse::<usize>()
                            .map_err(|_| format!("path {text:?}: index {digits} is too large"))?;
                        steps.push(Step::Index(n));
                    }
                }
            }
            _ => return Err(format!("path {text:?}: expected '.' or '['")),
        }
    }
    if steps.is_empty() {
        return Err(format!("path {text:?} names no field"));
    }
    Ok(steps)
}

/// The text of a path, as [`parse_path`] reads it.
pub fn path_text(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) => {
                let plain = !k.is_empty() && !k.contains(['.', '[', ']', '\'', '\\']);
                if plain {
                    out.push('.');
                    out.push_str(k);
                } else {
                    out.push_str("['");
                    for c in k.chars() {
                        if c == '\'' || c == '\\' {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                    out.push_str("']");
                }
            }
            Step::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    out
}

/// The value at a path.
pub fn get_path<'a>(root: &'a Json, steps: &[Step]) -> Option<&'a Json> {
    let mut cur = root;
    for s in steps {
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => m.get(k)?,
            (Json::Array(a), Step::Index(i)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

pub(super) fn describe(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// Writes `value` at a path, creating missing (or null) objects on the way.
pub fn set_path(root: &mut Json, steps: &[Step], value: Json) -> Result<(), String> {
    let Some((last, parents)) = steps.split_last() else {
        return Err("the path names no field".to_owned());
    };
    let mut cur = root;
    for (depth, s) in parents.iter().enumerate() {
        let here = path_text(steps.get(..depth).unwrap_or(&[]));
        if cur.is_null() {
            if let Step::Key(_) = s {
                *cur = Json::Object(Map::new());
            }
        }
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => {
                let next_is_index = matches!(steps.get(depth + 1), Some(Step::Index(_)));
                let slot = m.entry(k.clone()).or_insert(Json::Null);
                if slot.is_null() && next_is_index {
                    return Err(format!(
                        "{} is missing: a list is not created by index",
                        path_text(steps.get(..=depth).unwrap_or(&[]))
                    ));
                }
                slot
            }
            (Json::Array(a), Step::Index(i)) => {
                let len = a.len();
                a.get_mut(*i).ok_or_else(|| {
                    format!("{here}[{i}] does not exist: the list has {len} items")
                })?
            }
            (other, step) => {
                return Err(format!(
                    "cannot write {}: {} is {}",
                    path_text(steps),
                    if here.is_empty() { "the object" } else { &here },
                    match step {
                        Step::Key(_) => describe(other),
                        Step::Index(_) => describe(other),
                    }
                ))
            }
        };
    }
    let parent_text = path_text(parents);
    if cur.is_null() {
        if let Step::Key(_) = last {
            *cur = Json::Object(Map::new());
        }
    }
    match (cur, last) {
        (Json::Object(m), Step::Key(k)) => {
            m.insert(k.clone(), value);
            Ok(())
        }
        (Json::Array(a), Step::Index(i)) => {
            let len = a.len();
            match a.get_mut(*i) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None => Err(format!(
                    "{parent_text}[{i}] does not exist: the list has {len} items"
                )),
            }
        }
        (other, _) => Err(format!(
            "cannot write {}: {} is {}",
            path_text(steps),
            if parent_text.is_empty() {
                "the object"
            } else {
                &parent_text
            },
            describe(other)
        )),
    }
}

/// Removes the value at a path (nothing when it is missing).
pub fn remove_path(root: &mut Json, steps: &[Step]) -> Option<Json> {
    let (last, parents) = steps.split_last()?;
    let mut cur = root;
    for s in parents {
        cur = match (cur, s) {
            (Json::Object(m), Step::Key(k)) => m.get_mut(k)?,
            (Json::Array(a), Step::Index(i)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    match (cur, last) {
        (Json::Object(m), Step::Key(k)) => m.remove(k),
        (Json::Array(a), Step::Index(i)) if *i < a.len() => Some(a.remove(*i)),
        _ => None,
    }
}
