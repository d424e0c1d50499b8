//! The text of the messages between the page and the engine's worker
//! ([`crate::worker_protocol::ToWorker`], [`crate::worker_protocol::FromWorker`]), written
//! ([`to_string`]) and read ([`from_str`]) by serde code built for size rather than speed.
//!
//! `serde_json`'s deserializer inlines its parsing (whitespace, punctuation, strings, error
//! positions) into every instance of its generic methods, and a derived struct read from a
//! JSON map matches every key against every field name: reading the report cost about
//! 400 KB of wasm (42 copies of `deserialize_seq`, 42 of `Option::deserialize`, one per
//! type). Here the parsing is one out-of-line function that returns the next token
//! ([`Reader`]), each generic method only matches a token and calls its visitor, and a struct
//! is written as an array of its fields in order (read by the derived `visit_seq`, no keys).
//!
//! The text is JSON except for structs: `[field, …]`, where `~` stands for a field its
//! `Serialize` skipped (`skip_serializing_if`) and reads as a missing field does from JSON
//! (`None`, or the field's default), as do fields past the end of the array (an adjacently
//! tagged unit variant writes only its tag). Everything else reads as `serde_json` reads it,
//! with the same visitor calls: non-negative integers as `u64`, negative ones as `i64`, the
//! rest as `f64`; `null` as `None` or unit; a string or a one-key map as an enum;
//! `serde_json`'s `RawValue` (the engine's `JsonText`, written verbatim); `serde_json`'s
//! recursion limit (128 nested arrays and maps). Maps need string keys (`serde_json` quotes
//! others; the messages have none), and internally tagged or untagged enums must not hold
//! structs with skipped fields (they are read through serde's buffered content; the messages
//! use externally tagged enums, see [`crate::worker_protocol::ToWorker`]). Errors carry no
//! detail: the messages are written by the same build, so one that does not read is a bug,
//! and the caller only logs it.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser;

/// Reads a value of type `T` from `text`, as [`to_string`] writes it (nothing but whitespace
/// may follow).
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Result<T, Error> {
    let mut reader = Reader {
        text,
        at: 0,
        depth: MAX_DEPTH,
    };
    let value = T::deserialize(&mut reader)?;
    reader.skip_space();
    if reader.at == text.len() {
        Ok(value)
    } else {
        Err(Error)
    }
}

/// How deep arrays and maps may nest (`serde_json`'s default limit: the 128th level is
/// refused).
const MAX_DEPTH: usize = 127;

/// `serde_json`'s name for its raw value, which its deserializer answers with the value's
/// text.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// The text did not read as the type asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the message did not read as its type")
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Error {
        Error
    }
}

/// One token of JSON text.
#[derive(Debug, PartialEq)]
enum Token<'de> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(Cow<'de, str>),
    /// `[`, entered (the depth counted).
    Array,
    /// `{`, entered (the depth counted).
    Object,
}

/// The reader ([`from_str`]'s deserializer): the text and where it is.
pub struct Reader<'de> {
    text: &'de str,
    at: usize,
    depth: usize,
}

impl<'de> Reader<'de> {
    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.as_bytes().get(self.at).copied()
    }

    /// Consumes `word` when the text continues with it.
    fn eat(&mut self, word: &str) -> bool {
        let rest = self.text.get(self.at..).unwrap_or("");
        if rest.starts_with(word) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    /// The next token; `[` and `{` are entered (one level deeper).
    #[inline(never)]
    fn token(&mut self) -> Result<Token<'de>, Error> {
        let Some(first) = self.peek() else {
            return Err(Error);
        };
        match first {
            b'n' if self.eat("null") => Ok(Token::Null),
            b't' if self.eat("true") => Ok(Token::Bool(true)),
            b'f' if self.eat("false") => Ok(Token::Bool(false)),
            b'"' => self.string().map(Token::Str),
            b'[' | b'{' => {
                self.at += 1;
                self.depth = self.depth.checked_sub(1).ok_or(Error)?;
                Ok(if first == b'[' {
                    Token::Array
                } else {
                    Token::Object
                })
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Error),
        }
    }

    /// A number: an integer as `u64` (non-negative) or `i64` (negative) when it fits, else
    /// an `f64` (as `serde_json` reads it; `-0` is the float).
    fn number(&mut self) -> Result<Token<'de>, Error> {
        let start = self.at;
        let bytes = self.text.as_bytes();
        let mut integer = true;
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'0'..=b'9' | b'-' | b'+' => {}
                b'.' | b'e' | b'E' => integer = false,
                _ => break,
            }
            self.at += 1;
        }
        let text = self.text.get(start..self.at).ok_or(Error)?;
        if integer {
            if let Some(digits) = text.strip_prefix('-') {
                if let Ok(n) = digits.parse::<u64>() {
                    if n != 0 && n <= i64::MAX as u64 + 1 {
                        return Ok(Token::I64((n as i64).wrapping_neg()));
                    }
                }
            } else if let Ok(n) = text.parse::<u64>() {
                return Ok(Token::U64(n));
            }
        }
        // serde_json refuses what would be infinite (and never writes it).
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Token::F64(n)),
            _ => Err(Error),
        }
    }

    /// A string (the opening quote next), borrowed from the text when it has no escapes.
    fn string(&mut self) -> Result<Cow<'de, str>, Error> {
        self.at += 1;
        let bytes = self.text.as_bytes();
        let start = self.at;
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'"' => {
                    let s = self.text.get(start..self.at).ok_or(Error)?;
                    self.at += 1;
                    return Ok(Cow::Borrowed(s));
                }
                b'\\' => break,
                _ => self.at += 1,
            }
        }
        let mut out = String::from(self.text.get(start..self.at).ok_or(Error)?);
        loop {
            // The run up to the next quote or escape, copied whole.
            let run = self.at;
            while let Some(&b) = bytes.get(self.at) {
                if b == b'"' || b == b'\\' {
                    break;
                }
                self.at += 1;
            }
            out.push_str(self.text.get(run..self.at).ok_or(Error)?);
            let quote = *bytes.get(self.at).ok_or(Error)? == b'"';
            self.at += 1;
            if quote {
                return Ok(Cow::Owned(out));
            }
            let e = *bytes.get(self.at).ok_or(Error)?;
            self.at += 1;
            out.push(match e {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.escaped_char()?,
                _ => return Err(Error),
            });
        }
    }

    /// The character of a `\u` escape (its four hex digits next; a surrogate pair is two
    /// escapes).
    fn escaped_char(&mut self) -> Result<char, Error> {
        let high = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&high) {
            if !self.eat("\\u") {
                return Err(Error);
            }
            let low = self.hex4()?;
            if !(0xDC00..0xE000).contains(&low) {
                return Err(Error);
            }
            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        } else {
            high
        };
        char::from_u32(code).ok_or(Error)
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self.text.get(self.at..self.at + 4).ok_or(Error)?;
        self.at += 4;
        u32::from_str_radix(digits, 16).map_err(|_| Error)
    }

    /// Whether an array or map (already entered) has another element: consumes the `,`
    /// before it, or the `close` after the last one (leaving the level).
    #[inline(never)]
    fn more(&mut self, close: u8, first: &mut bool) -> Result<bool, Error> {
        let next = self.peek().ok_or(Error)?;
        if next == close {
            self.at += 1;
            self.depth += 1;
            return Ok(false);
        }
        if !std::mem::take(first) {
            if next != b',' {
                return Err(Error);
            }
            self.at += 1;
        }
        Ok(true)
    }

    /// Consumes the `:` after a map key.
    #[inline(never)]
    fn colon(&mut self) -> Result<(), Error> {
        if self.peek() == Some(b':') {
            self.at += 1;
            Ok(())
        } else {
            Err(Error)
        }
    }

    /// Skips one value (iteratively, at any depth, as `serde_json` skips a raw value); its
    /// text.
    #[inline(never)]
    fn skip_value(&mut self) -> Result<&'de str, Error> {
        self.skip_space();
        let start = self.at;
        let depth = std::mem::replace(&mut self.depth, usize::MAX);
        // The containers entered: each one's closing byte, and whether it is still before
        // its first element.
        let mut open: Vec<(u8, bool)> = Vec::new();
        loop {
            match self.token()? {
                Token::Array => open.push((b']', true)),
                Token::Object => open.push((b'}', true)),
                _ => {}
            }
            loop {
                let Some((close, first)) = open.last_mut() else {
                    self.depth = depth;
                    return self.text.get(start..self.at).ok_or(Error);
                };
                let close = *close;
                if self.more(close, first)? {
                    if close == b'}' {
                        self.string_token()?;
                        self.colon()?;
                    }
                    break;
                }
                open.pop();
            }
        }
    }

    /// A string token (a map key).
    fn string_token(&mut self) -> Result<Cow<'de, str>, Error> {
        match self.token()? {
            Token::Str(s) => Ok(s),
            _ => Err(Error),
        }
    }

    /// Whether the next element is `~`, a skipped field (consumed if so).
    #[inline(never)]
    fn skipped(&mut self) -> bool {
        self.peek() == Some(b'~') && self.eat("~")
    }

    /// Whether the next value is `null` (consumed if so).
    #[inline(never)]
    fn null_next(&mut self) -> bool {
        self.peek() == Some(b'n') && self.eat("null")
    }
}

/// Calls the visitor for a scalar token; arrays and maps are the caller's.
fn visit_scalar<'de, V: Visitor<'de>>(token: Token<'de>, visitor: V) -> Result<V::Value, Error> {
    match token {
        Token::Null => visitor.visit_unit(),
        Token::Bool(b) => visitor.visit_bool(b),
        Token::U64(n) => visitor.visit_u64(n),
        Token::I64(n) => visitor.visit_i64(n),
        Token::F64(n) => visitor.visit_f64(n),
        Token::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
        Token::Str(Cow::Owned(s)) => visitor.visit_string(s),
        Token::Array | Token::Object => Err(Error),
    }
}

/// Visits an array (entered) as a sequence (`fields`: a struct's).
fn visit_array<'de, V: Visitor<'de>>(
    reader: &mut Reader<'de>,
    visitor: V,
    fields: bool,
) -> Result<V::Value, Error> {
    let mut items = Items::new(reader, b']');
    items.fields = fields;
    let value = visitor.visit_seq(&mut items)?;
    items.finish()?;
    Ok(value)
}

/// Visits a map (entered).
fn visit_object<'de, V: Visitor<'de>>(
    reader: &mut Reader<'de>,
    visitor: V,
) -> Result<V::Value, Error> {
    let mut items = Items::new(reader, b'}');
    let value = visitor.visit_map(&mut items)?;
    items.finish()?;
    Ok(value)
}

/// An array's elements, or a map's entries.
struct Items<'r, 'de> {
    reader: &'r mut Reader<'de>,
    /// The closing byte.
    close: u8,
    first: bool,
    /// Whether the closing byte was read.
    done: bool,
    /// A struct's fields (an element may be `~`, a field the writer skipped).
    fields: bool,
}

impl<'r, 'de> Items<'r, 'de> {
    fn new(reader: &'r mut Reader<'de>, close: u8) -> Self {
        Items {
            reader,
            close,
            first: true,
            done: false,
            fields: false,
        }
    }

    /// Whether another element follows (see [`Reader::more`]).
    #[inline(never)]
    fn next(&mut self) -> Result<bool, Error> {
        let more = self.reader.more(self.close, &mut self.first)?;
        self.done = !more;
        Ok(more)
    }

    /// After the visitor: the container must end here (a visitor that stopped reading
    /// early leaves elements behind, which is an error as in `serde_json`).
    #[inline(never)]
    fn finish(mut self) -> Result<(), Error> {
        if self.done || !self.next()? {
            Ok(())
        } else {
            Err(Error)
        }
    }
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.fields {
            // A field skipped, or past the ones written, reads as missing: `None` for an
            // `Option`, the unit content of an adjacently tagged unit variant, else the
            // field's default (the derived code's answer to no element).
            if self.done || !self.next()? || self.reader.skipped() {
                return Ok(seed.deserialize(Missing).ok());
            }
        } else if !self.next()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.next()? {
            seed.deserialize(&mut *self.reader).map(Some)
        } else {
            Ok(None)
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.reader.colon()?;
        seed.deserialize(&mut *self.reader)
    }
}

/// An enum written as a one-key map: the key names the variant, the value is its content.
impl<'de> de::EnumAccess<'de> for &mut Reader<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let variant = seed.deserialize(&mut *self)?;
        self.colon()?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Reader<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        de::Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

/// A field the writer skipped or did not write: reads as `None` for an `Option`, as unit
/// for what reads any value, and as nothing else.
struct Missing;

impl<'de> de::Deserializer<'de> for Missing {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// `serde_json`'s raw value: a one-entry map from [`RAW_VALUE`] to the value's text.
struct Raw<'de>(Option<&'de str>);

impl<'de> de::MapAccess<'de> for Raw<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        let key: de::value::BorrowedStrDeserializer<'de, Error> =
            de::value::BorrowedStrDeserializer::new(RAW_VALUE);
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let text = self.0.take().ok_or(Error)?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(text))
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Array => visit_array(self, visitor, false),
            Token::Object => visit_object(self, visitor),
            token => visit_scalar(token, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.null_next() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Array => visit_array(self, visitor, false),
            _ => Err(Error),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Object => visit_object(self, visitor),
            _ => Err(Error),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // Written by [`to_string`]: an array of the fields in order.
        match self.token()? {
            Token::Array => visit_array(self, visitor, true),
            _ => Err(Error),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.token()? {
            Token::Str(s) => visitor.visit_enum(s.into_deserializer()),
            Token::Object => {
                let value = visitor.visit_enum(&mut *self)?;
                if self.more(b'}', &mut false)? {
                    Err(Error)
                } else {
                    Ok(value)
                }
            }
            _ => Err(Error),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == RAW_VALUE {
            let text = self.skip_value()?;
            return visitor.visit_map(Raw(Some(text)));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct tuple tuple_struct identifier
    }
}

/// Writes `value` as the messages' text: JSON, except that a struct is an array of its fields
/// in their order, a field its `Serialize` skips (`skip_serializing_if`) written as `~`.
pub fn to_string<T: ser::Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut writer = Writer {
        out: String::new(),
        raw: false,
    };
    value.serialize(&mut writer)?;
    Ok(writer.out)
}

/// The writer: the text so far.
struct Writer {
    out: String,
    /// The next string is `serde_json`'s raw value's text: written as it is.
    raw: bool,
}

impl Writer {
    /// `s` as a JSON string (escaped as `serde_json` escapes; runs copied whole).
    #[inline(never)]
    fn string(&mut self, s: &str) {
        let out = &mut self.out;
        out.push('"');
        let mut run = 0;
        for (i, b) in s.bytes().enumerate() {
            let escape = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..=0x1f => "",
                _ => continue,
            };
            out.push_str(s.get(run..i).unwrap_or(""));
            run = i + 1;
            if escape.is_empty() {
                let _ = write!(out, "\\u{b:04x}");
            } else {
                out.push_str(escape);
            }
        }
        out.push_str(s.get(run..).unwrap_or(""));
        out.push('"');
    }

    /// An integer.
    #[inline(never)]
    fn integer(&mut self, n: impl fmt::Display) {
        let _ = write!(self.out, "{n}");
    }

    /// A `,` before every element but the first.
    #[inline(never)]
    fn comma(&mut self, first: &mut bool) {
        if !std::mem::take(first) {
            self.out.push(',');
        }
    }

    /// Opens `{"variant":` (an enum variant with content).
    #[inline(never)]
    fn variant(&mut self, variant: &str) {
        self.out.push('{');
        self.string(variant);
        self.out.push(':');
    }
}

/// A list being written: an array, a map, a struct, or one of them inside a variant's
/// `{"variant": …}`.
struct List<'w> {
    writer: &'w mut Writer,
    first: bool,
    /// What closes it (`]`, `}`, `]}`).
    close: &'static str,
    /// A struct that is `serde_json`'s raw value: its one field's string is written as is.
    raw: bool,
}

impl List<'_> {
    #[inline(never)]
    fn end(self) -> Result<(), Error> {
        if !self.raw {
            self.writer.out.push_str(self.close);
        }
        Ok(())
    }

    fn element<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.writer.comma(&mut self.first);
        value.serialize(&mut *self.writer)
    }
}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Error {
        Error
    }
}

impl<'w> ser::Serializer for &'w mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = List<'w>;
    type SerializeTuple = List<'w>;
    type SerializeTupleStruct = List<'w>;
    type SerializeTupleVariant = List<'w>;
    type SerializeMap = List<'w>;
    type SerializeStruct = List<'w>;
    type SerializeStructVariant = List<'w>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.push_str(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.integer(v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        self.integer(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.integer(v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        self.integer(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        // serde_json's text for it (`null` when not finite).
        self.out
            .push_str(&serde_json::to_string(&v).map_err(|_| Error)?);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.out
            .push_str(&serde_json::to_string(&v).map_err(|_| Error)?);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        if std::mem::take(&mut self.raw) {
            self.out.push_str(v);
        } else {
            self.string(v);
        }
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        ser::Serializer::collect_seq(self, v)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: ser::Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ser::Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ser::Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant(variant);
        value.serialize(&mut *self)?;
        self.out.push('}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<List<'w>, Error> {
        self.out.push('[');
        Ok(List {
            writer: self,
            first: true,
            close: "]",
            raw: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<List<'w>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<List<'w>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<List<'w>, Error> {
        self.variant(variant);
        self.out.push('[');
        Ok(List {
            writer: self,
            first: true,
            close: "]}",
            raw: false,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<List<'w>, Error> {
        self.out.push('{');
        Ok(List {
            writer: self,
            first: true,
            close: "}",
            raw: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<List<'w>, Error> {
        let raw = name == RAW_VALUE;
        let mut list = self.serialize_seq(Some(len))?;
        if raw {
            list.writer.out.pop();
            list.raw = true;
        }
        Ok(list)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<List<'w>, Error> {
        self.serialize_tuple_variant(name, index, variant, len)
    }
}

impl ser::SerializeSeq for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeTuple for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeTupleStruct for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeTupleVariant for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeMap for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ser::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.writer.comma(&mut self.first);
        // Keys are strings (serde_json quotes other keys; the messages have none).
        let at = self.writer.out.len();
        key.serialize(&mut *self.writer)?;
        if !self
            .writer
            .out
            .get(at..)
            .is_some_and(|k| k.starts_with('"'))
        {
            return Err(Error);
        }
        self.writer.out.push(':');
        Ok(())
    }
    fn serialize_value<T: ser::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeStruct for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ser::Serialize + ?Sized>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // The raw value's one field is its text, a string: written as it is.
        self.writer.raw = self.raw;
        self.element(value)
    }
    fn skip_field(&mut self, _key: &'static str) -> Result<(), Error> {
        self.writer.comma(&mut self.first);
        self.writer.out.push('~');
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

impl ser::SerializeStructVariant for List<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ser::Serialize + ?Sized>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.element(value)
    }
    fn skip_field(&mut self, _key: &'static str) -> Result<(), Error> {
        self.writer.comma(&mut self.first);
        self.writer.out.push('~');
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        List::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use serde_json::{json, Value};

    /// Reads `text` both ways: this reader and serde_json agree.
    fn both<T: for<'de> Deserialize<'de> + PartialEq + fmt::Debug>(text: &str) -> Option<T> {
        let ours = from_str::<T>(text).ok();
        let theirs = serde_json::from_str::<T>(text).ok();
        assert_eq!(ours, theirs, "{text}");
        ours
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        #[serde(default)]
        list: Vec<i64>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Kind {
        Plain,
        Newtype(Inner),
        Tuple(u8, String),
        Struct { value: f64 },
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase", tag = "kind", content = "index")]
    enum Adjacent {
        Unit,
        Newtype(usize),
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(untagged)]
    enum Loose {
        Number(f64),
        Text(String),
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Outer {
        kinds: Vec<Kind>,
        value: Value,
        loose: Vec<Loose>,
        adjacent: Vec<Adjacent>,
        #[serde(flatten)]
        rest: std::collections::BTreeMap<String, Value>,
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let cases = [
            "null",
            "true",
            " false ",
            "0",
            "-0",
            "12",
            "-12",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.5",
            "-2.5e-7",
            "1E400",
            r#""plain""#,
            r#""esc\"aped\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é""#,
            r#"[1, [2, []], {"a": {}}]"#,
            r#"{"a":[true,null],"b":{"c":"d"}}"#,
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "\"open",
            r#""\ud83d""#,
            "nul",
            "[1] x",
            "",
        ];
        for text in cases {
            both::<Value>(text);
        }
    }

    #[test]
    fn typed_values_round_trip() {
        let outer = Outer {
            kinds: vec![
                Kind::Plain,
                Kind::Newtype(Inner {
                    name: "n\"1\u{1}\u{7f}é".into(),
                    count: Some(3),
                    list: vec![-1, 2],
                }),
                Kind::Newtype(Inner {
                    name: String::new(),
                    count: None,
                    list: Vec::new(),
                }),
                Kind::Tuple(7, "t".into()),
                Kind::Struct { value: 0.1 },
            ],
            value: json!({"x": [1, -2, 3.5, null, {"y": "z"}]}),
            loose: vec![Loose::Number(1.0), Loose::Text("s".into())],
            adjacent: vec![Adjacent::Unit, Adjacent::Newtype(4)],
            rest: [("extra".to_owned(), json!([1]))].into_iter().collect(),
        };
        let text = to_string(&outer).unwrap();
        assert!(text.contains(r#"{"newtype":["",~,[]]}"#), "{text}");
        assert!(text.contains(r#"{"struct":[0.1]}"#), "{text}");
        assert!(text.contains(r#"[["unit"],["newtype",4]]"#), "{text}");
        assert_eq!(from_str::<Outer>(&text), Ok(outer));
        assert_eq!(to_string(&f64::NAN), Ok("null".to_owned()));
        // A struct's fields: skipped ones, fewer (the rest default), too few, too many.
        let inner = |count, list: &[i64]| Inner {
            name: "a".into(),
            count,
            list: list.to_vec(),
        };
        assert_eq!(from_str::<Inner>(r#"["a",~,[1]]"#), Ok(inner(None, &[1])));
        assert_eq!(from_str::<Inner>(r#"["a",2,~]"#), Ok(inner(Some(2), &[])));
        assert_eq!(from_str::<Inner>(r#"["a",2]"#), Ok(inner(Some(2), &[])));
        assert_eq!(from_str::<Inner>(r#"[~,2]"#), Err(Error));
        assert_eq!(from_str::<Inner>(r#"["a",2,[],5]"#), Err(Error));
        assert_eq!(from_str::<Inner>(r#"{"name":"a"}"#), Err(Error));
        // Scalars, enums and maps read as serde_json reads them.
        assert_eq!(both::<u8>("255"), Some(255));
        assert_eq!(both::<u8>("256"), None);
        assert_eq!(both::<i8>("-129"), None);
        assert_eq!(both::<f32>("1"), Some(1.0));
        assert_eq!(both::<Option<u8>>("null"), Some(None));
        assert_eq!(both::<()>("null"), Some(()));
        both::<Kind>(r#"{"plain":null}"#);
        both::<Kind>(r#"{"tuple":[1,"b"],"plain":null}"#);
        both::<Kind>(r#""struct""#);
        both::<char>(r#""c""#);
        both::<std::collections::BTreeMap<String, Vec<u8>>>(r#"{"a":[1],"b":[]}"#);
    }

    #[test]
    fn raw_values_keep_their_text() {
        let text = r#"{"a":[1,{"b":"c"}],"n":null}"#;
        let raw: Box<serde_json::value::RawValue> = from_str(text).unwrap();
        assert_eq!(raw.get(), text);
        let object = crd_studio_engine::JsonText::from_value(&json!({"k": [1, "v w"]}));
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Holder {
            object: crd_studio_engine::JsonText,
        }
        let holder = Holder { object };
        let text = to_string(&holder).unwrap();
        assert_eq!(text, r#"[{"k":[1,"v w"]}]"#);
        assert_eq!(from_str::<Holder>(&text), Ok(holder));
    }

    #[test]
    fn nesting_stops_where_serde_json_stops() {
        for depth in [127, 128, 129] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            both::<Value>(&text);
        }
    }

    /// Every gallery example's whole reply (analysis, previews with the query's field
    /// selector, webhook response and Explain path) reads back equal to what was written.
    #[test]
    fn the_gallery_replies_read_back_equal() {
        use crate::worker_protocol::{FromWorker, Outcome};
        for example in crate::gallery::all() {
            let mut query = example.query("2024-01-02T03:04:05Z");
            query.explain_path = "spec".to_owned();
            let mut reply = crate::worker_boundary::answer_with(&example.request(), &query);
            reply.versions = None;
            let message = FromWorker {
                studio: example.slug.to_owned(),
                seq: 7,
                outcome: Outcome::Reply(Box::new(reply)),
            };
            let text = to_string(&message).unwrap();
            let read = from_str::<FromWorker>(&text);
            assert_eq!(read.as_ref().ok(), Some(&message), "{}", example.slug);
        }
    }
}
