//! [`JsonText`]: a JSON value kept as its compact text, for the object snapshots a report
//! holds (the object pruned, defaulted, prepared, stored, read in each version).
//!
//! A `serde_json::Value` costs far more than its text: a one-key map is a B-tree leaf of about
//! 640 bytes, so an object of small maps takes some 45 bytes per byte of JSON, and a report
//! holding five snapshots of a 3 MB object held over a gigabyte. As text a snapshot costs its
//! JSON size. The stages work on `Value`s and turn each snapshot into text as soon as it is
//! final; readers parse it back on demand ([`JsonText::to_value`]).
//!
//! It serializes as the JSON value itself (not as a string), so a report's JSON is the same
//! as with `Value` fields, and deserializes from any JSON value (with `serde_json`, the only
//! format the engine's reports travel in).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value as its compact text (`serde_json::to_string`: map keys sorted, no spaces).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JsonText(Box<str>);

impl JsonText {
    /// `null`.
    pub fn null() -> JsonText {
        JsonText("null".into())
    }

    /// The text of `value`.
    pub fn from_value(value: &Value) -> JsonText {
        match serde_json::to_string(value) {
            Ok(text) => JsonText(text.into_boxed_str()),
            // Serializing a `Value` to a string cannot fail (its keys are strings).
            Err(_) => JsonText::null(),
        }
    }

    /// The value, parsed back. Texts are only ever made from values (or read from a JSON
    /// value), so this does not fail; a text that did not parse would read as `null`. The
    /// nesting is that of a document the engine read (at most
    /// [`crate::document::MAX_DEPTH`] levels), so serde_json's recursion limit is lifted.
    pub fn to_value(&self) -> Value {
        let mut de = serde_json::Deserializer::from_str(&self.0);
        de.disable_recursion_limit();
        Value::deserialize(&mut de).unwrap_or(Value::Null)
    }

    /// Whether the value is `null` (also what [`Default`] gives).
    pub fn is_null(&self) -> bool {
        &*self.0 == "null"
    }

    /// The compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for JsonText {
    fn default() -> JsonText {
        JsonText::null()
    }
}

impl From<&Value> for JsonText {
    fn from(value: &Value) -> JsonText {
        JsonText::from_value(value)
    }
}

impl From<Value> for JsonText {
    fn from(value: Value) -> JsonText {
        JsonText::from_value(&value)
    }
}

impl fmt::Debug for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for JsonText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Borrowing the text as a raw value writes it verbatim into a serde_json output.
        let raw: &RawValue = serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<JsonText, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        // The raw text keeps the input's spacing: store the compact form, so that equal
        // values compare equal.
        let compact = if raw.get().bytes().any(|b| b.is_ascii_whitespace()) {
            let mut de = serde_json::Deserializer::from_str(raw.get());
            de.disable_recursion_limit();
            let value = Value::deserialize(&mut de).map_err(serde::de::Error::custom)?;
            JsonText::from_value(&value)
        } else {
            JsonText(String::from(Box::<str>::from(raw)).into_boxed_str())
        };
        Ok(compact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_and_serializes_as_the_value() {
        let v = json!({"b": [1, 2.5, "x"], "a": {"n": null}});
        let t = JsonText::from_value(&v);
        assert_eq!(t.as_str(), r#"{"a":{"n":null},"b":[1,2.5,"x"]}"#);
        assert_eq!(t.to_value(), v);
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Holder {
            object: JsonText,
        }
        let h = Holder { object: t.clone() };
        let text = serde_json::to_string(&h).unwrap_or_default();
        assert_eq!(text, r#"{"object":{"a":{"n":null},"b":[1,2.5,"x"]}}"#);
        assert_eq!(serde_json::from_str::<Holder>(&text).ok(), Some(h));
        // Pretty input reads back to the same compact text.
        let pretty = serde_json::to_string_pretty(&json!({"object": v})).unwrap_or_default();
        assert_eq!(
            serde_json::from_str::<Holder>(&pretty)
                .ok()
                .map(|h| h.object),
            Some(t)
        );
    }

    #[test]
    fn null_and_default() {
        assert!(JsonText::default().is_null());
        assert!(JsonText::from_value(&Value::Null).is_null());
        assert!(!JsonText::from_value(&json!({})).is_null());
        assert_eq!(JsonText::null().to_value(), Value::Null);
    }

    #[test]
    fn deep_values_read_back() {
        let mut v = json!(1);
        for _ in 0..600 {
            v = json!([v]);
        }
        assert_eq!(JsonText::from_value(&v).to_value(), v);
        // Past serde_json's recursion limit of 128, a report still serializes and reads back
        // (the worker's reply to the page).
        let list = vec![JsonText::from_value(&v)];
        let text = serde_json::to_string(&list).unwrap_or_default();
        let back: Vec<JsonText> = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, list);
    }
}
