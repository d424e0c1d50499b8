//! `cel.ValidFieldPath` (`pkg/apiserver/schema/cel/validation.go`): a JSONPath-like field
//! path (`.a.b`, `['key']`) checked against a structural schema. The CRD validation uses it
//! for `x-kubernetes-validations[].fieldPath` and `selectableFields[].jsonPath`.

use crate::documents::path::FieldPath;
use crate::schema::structural::Structural;

/// Splits a path into tokens as the Go scanner does: `.`, `[` and `]` are single-character
/// tokens, a single-quoted string (with `\'` escapes) is one token, other text runs up to the
/// next delimiter.
fn tokens(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        let b = rest.as_bytes();
        let mut len = None;
        if b.first() == Some(&b'\'') {
            for i in 1..b.len() {
                if b.get(i) == Some(&b'\'') && b.get(i - 1) != Some(&b'\\') {
                    len = Some(i + 1);
                    break;
                }
            }
            // An unterminated quote runs to the end.
            let len = len.unwrap_or(b.len());
            out.push(rest.get(..len).unwrap_or(rest));
            rest = rest.get(len..).unwrap_or("");
            continue;
        }
        for (i, c) in b.iter().enumerate() {
            if matches!(c, b'.' | b'[' | b']') {
                len = Some(if i == 0 { 1 } else { i });
                break;
            }
        }
        let len = len.unwrap_or(b.len());
        out.push(rest.get(..len).unwrap_or(rest));
        rest = rest.get(len..).unwrap_or("");
    }
    out
}

/// `unescapeSingleQuote`: `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`, `\'`, `\\`.
fn unescape_single_quote(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    let mut err = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(d) = chars.next() else {
            out.push('\\');
            break;
        };
        match d {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\'' => out.push('\''),
            '\\' => out.push('\\'),
            other => {
                err = Some(format!("invalid escape char \\{other}"));
            }
        }
    }
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The result of [`valid_field_path`]: the path in field-path form and the schema it leads to
/// (`None` when it goes through an `additionalProperties: true` without a schema).
pub type FieldPathResult<'s> = Result<(FieldPath, Option<&'s Structural>), String>;

/// `ValidFieldPath(jsonPath, schema, WithFieldPathAllowArrayNotation(allow_array_notation))`.
/// The error is the Go error text (`does not refer to a valid field`, `expected [ or . but
/// got: a`, ...).
pub fn valid_field_path<'s>(
    json_path: &str,
    schema: &'s Structural,
    allow_array_notation: bool,
) -> FieldPathResult<'s> {
    let mut path = FieldPath::root();
    let mut schema: Option<&'s Structural> = Some(schema);
    let toks = tokens(json_path);
    let mut it = toks.into_iter();
    // Go dereferences the schema on every step; reaching a missing schema panics there (a
    // server error). Report it as an invalid field instead.
    let step = |path: &mut FieldPath,
                schema: &mut Option<&'s Structural>,
                name: &str|
     -> Result<(), String> {
        let Some(s) = *schema else {
            return Err("does not refer to a valid field".to_owned());
        };
        if !s.properties.is_empty() {
            path.0
                .push(crate::documents::path::Segment::Field(name.to_owned()));
            match s.properties.get(name) {
                Some(p) => *schema = Some(p),
                None => return Err("does not refer to a valid field".to_owned()),
            }
        } else if let Some(ap) = &s.additional_properties {
            *path = path.key(name);
            *schema = ap.structural.as_deref();
        } else {
            return Err("does not refer to a valid field".to_owned());
        }
        Ok(())
    };
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                if !allow_array_notation {
                    return Err("array notation is not allowed".to_owned());
                }
                let Some(tok) = it.next() else {
                    return Err("unexpected end of JSON path".to_owned());
                };
                let quoted = tok.len() >= 2 && tok.starts_with('\'') && tok.ends_with('\'');
                if !quoted {
                    return Err(format!("expected single quoted string but got {tok}"));
                }
                let inner = tok.get(1..tok.len() - 1).unwrap_or("");
                let unescaped = unescape_single_quote(inner)
                    .map_err(|e| format!("invalid string literal: {e}"))?;
                step(&mut path, &mut schema, &unescaped)?;
                match it.next() {
                    None => return Err("unexpected end of JSON path".to_owned()),
                    Some("]") => {}
                    Some(other) => return Err(format!("expected ] but got {other}")),
                }
            }
            "." => {
                let Some(tok) = it.next() else {
                    return Err("unexpected end of JSON path".to_owned());
                };
                step(&mut path, &mut schema, tok)?;
            }
            other => return Err(format!("expected [ or . but got: {other}")),
        }
    }
    Ok((path, schema))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::JsonSchemaProps;
    use serde_json::json;

    fn schema() -> Structural {
        let (p, _) = JsonSchemaProps::from_json(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"b.c": {"type": "string"}, "d": {"type": "integer"}}},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "l": {"type": "array", "items": {"type": "string"}},
            }
        }));
        Structural::from_props(&p).unwrap()
    }

    #[test]
    fn resolves_fields_and_map_keys() {
        let s = schema();
        let (p, found) = valid_field_path(".a.d", &s, true).unwrap();
        assert_eq!(p.to_string(), "a.d");
        assert_eq!(found.map(|f| f.generic.type_.as_str()), Some("integer"));
        let (p, _) = valid_field_path(".a['b.c']", &s, true).unwrap();
        assert_eq!(p.to_string(), "a.b.c");
        let (p, found) = valid_field_path(".m.x", &s, true).unwrap();
        assert_eq!(p.to_string(), "m[x]");
        assert_eq!(found.map(|f| f.generic.type_.as_str()), Some("string"));
    }

    #[test]
    fn errors_like_go() {
        let s = schema();
        let e = |p: &str| valid_field_path(p, &s, true).err();
        assert_eq!(
            e(".l[1]"),
            Some("expected single quoted string but got 1".into())
        );
        assert_eq!(e("a"), Some("expected [ or . but got: a".into()));
        assert_eq!(e(".x"), Some("does not refer to a valid field".into()));
        assert_eq!(e(".a."), Some("unexpected end of JSON path".into()));
        assert_eq!(e(".l.x"), Some("does not refer to a valid field".into()));
        assert_eq!(
            valid_field_path(".a['d']", &s, false).err(),
            Some("array notation is not allowed".into())
        );
    }
}
