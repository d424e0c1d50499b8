//! The bookkeeping of `sigs.k8s.io/json`'s case-sensitive decoder into typed structs: the
//! first type error wins and names the innermost struct and the field path
//! (`json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`), and
//! unknown fields are collected for strict decoding (`ownerReferences[0].foo`, at most 100,
//! each once).

use std::collections::HashSet;

use crd_studio_gostd::json::{json_kind, number_text};
use serde_json::Value as Json;

/// The most strict-decoding errors `sigs.k8s.io/json` keeps.
const MAX_STRICT_ERRORS: usize = 100;

/// Decoding state: error context, the first saved type error, strict unknown fields.
#[derive(Default)]
pub struct Decoder {
    /// Whether unknown fields are collected (`UnmarshalStrict`).
    pub strict: bool,
    saved: Option<String>,
    unknown: Vec<String>,
    seen: HashSet<String>,
    context_struct: Option<&'static str>,
    field_stack: Vec<&'static str>,
    strict_stack: Vec<String>,
}

/// An error that stops decoding at once (what an `UnmarshalJSON` method returns).
#[derive(Debug)]
pub struct Abort(pub String);

/// Where a struct field's decoding started, to restore the context after it.
pub struct Mark {
    context_struct: Option<&'static str>,
    fields: usize,
    strict: usize,
}

impl Decoder {
    /// A decoder; `strict` collects unknown fields.
    pub fn new(strict: bool) -> Decoder {
        Decoder {
            strict,
            ..Decoder::default()
        }
    }

    /// The rendered `UnmarshalTypeError` for `value` (the JSON kind, or `number 1.5`) into
    /// the Go type `type_name`, with the current context.
    pub fn type_error_text(&self, value: &str, type_name: &str) -> String {
        match self.context_struct {
            Some(st) => format!(
                "json: cannot unmarshal {value} into Go struct field {st}.{} of type {type_name}",
                self.field_stack.join(".")
            ),
            None if !self.field_stack.is_empty() => format!(
                "json: cannot unmarshal {value} into Go struct field .{} of type {type_name}",
                self.field_stack.join(".")
            ),
            None => format!("json: cannot unmarshal {value} into Go value of type {type_name}"),
        }
    }

    /// Saves a type error unless one is saved already (decoding goes on).
    pub fn type_error(&mut self, value: &str, type_name: &str) {
        if self.saved.is_none() {
            self.saved = Some(self.type_error_text(value, type_name));
        }
    }

    /// Enters the struct field `name` of the Go struct `struct_name`.
    pub fn enter_field(&mut self, struct_name: &'static str, name: &'static str) -> Mark {
        let mark = self.mark();
        self.context_struct = Some(struct_name);
        self.field_stack.push(name);
        self.push_strict_key(name);
        mark
    }

    fn mark(&self) -> Mark {
        Mark {
            context_struct: self.context_struct,
            fields: self.field_stack.len(),
            strict: self.strict_stack.len(),
        }
    }

    /// Enters a map key (only the strict path changes).
    pub fn enter_key(&mut self, key: &str) -> Mark {
        let mark = self.mark();
        self.push_strict_key(key);
        mark
    }

    /// Enters a list element.
    pub fn enter_index(&mut self, i: usize) -> Mark {
        let mark = self.mark();
        if self.strict {
            self.strict_stack.push(format!("[{i}]"));
        }
        mark
    }

    fn push_strict_key(&mut self, key: &str) {
        if !self.strict {
            return;
        }
        if self.strict_stack.is_empty() {
            self.strict_stack.push(key.to_owned());
        } else {
            self.strict_stack.push(format!(".{key}"));
        }
    }

    /// Leaves what `mark` entered.
    pub fn leave(&mut self, mark: Mark) {
        self.context_struct = mark.context_struct;
        self.field_stack.truncate(mark.fields);
        self.strict_stack.truncate(mark.strict);
    }

    /// Records an unknown field `key` at the current place.
    pub fn unknown_field(&mut self, key: &str) {
        if !self.strict || self.unknown.len() >= MAX_STRICT_ERRORS {
            return;
        }
        let path = if self.strict_stack.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.strict_stack.concat())
        };
        if self.seen.insert(path.clone()) {
            self.unknown.push(path);
        }
    }

    /// The decoding's outcome: the first saved type error, else the unknown fields.
    pub fn finish(self) -> Result<Vec<String>, String> {
        match self.saved {
            Some(e) => Err(e),
            None => Ok(self.unknown),
        }
    }

    /// `string` (or a named string type): the value, `None` to leave the field as it is.
    pub fn string(&mut self, v: &Json, type_name: &str) -> Option<String> {
        match v {
            Json::Null => None,
            Json::String(s) => Some(s.clone()),
            other => {
                self.type_error(json_kind(other), type_name);
                None
            }
        }
    }

    /// `int64`.
    pub fn int64(&mut self, v: &Json) -> Option<i64> {
        match v {
            Json::Null => None,
            Json::Number(n) => {
                // The number as it was written: an unsigned integer beyond int64 keeps its digits.
                let text = match n.as_u64() {
                    Some(u) => u.to_string(),
                    None => number_text(n),
                };
                match text.parse::<i64>() {
                    Ok(i) => Some(i),
                    Err(_) => {
                        self.type_error(&format!("number {text}"), "int64");
                        None
                    }
                }
            }
            other => {
                self.type_error(json_kind(other), "int64");
                None
            }
        }
    }

    /// `bool`.
    pub fn bool(&mut self, v: &Json) -> Option<bool> {
        match v {
            Json::Null => None,
            Json::Bool(b) => Some(*b),
            other => {
                self.type_error(json_kind(other), "bool");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decoder_context_and_strict_paths() {
        let mut d = Decoder::new(true);
        let m = d.enter_field("ObjectMeta", "ownerReferences");
        let i = d.enter_index(0);
        d.unknown_field("foo");
        let f = d.enter_field("OwnerReference", "uid");
        assert_eq!(d.int64(&json!(1.5)), None);
        d.leave(f);
        d.leave(i);
        d.leave(m);
        d.unknown_field("bar");
        assert_eq!(
            d.type_error_text("x", "y"),
            "json: cannot unmarshal x into Go value of type y"
        );
        assert_eq!(
            d.finish(),
            Err("json: cannot unmarshal number 1.5 into Go struct field OwnerReference.ownerReferences.uid of type int64".to_owned())
        );
    }
}
