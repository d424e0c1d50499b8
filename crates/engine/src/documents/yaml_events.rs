//! YAML syntax events from libyaml, through `unsafe-libyaml` (libyaml translated to Rust).
//!
//! go-yaml v2, which `sigs.k8s.io/yaml` (kubectl, the API server) uses, is a port of libyaml,
//! so libyaml accepts and rejects the same texts, with the same problem messages and marks.
//! This module is the only place in the engine with `unsafe` code: it drives the parser
//! through its C-shaped API and hands out owned, safe events.
//!
//! Invariants kept here: the parser is initialised before use and deleted exactly once (in
//! `Drop`); every event is deleted right after its data is copied out; the input slice
//! outlives the parser (it is borrowed for the parser's lifetime); C strings from events are
//! read only when non-null and are NUL-terminated by libyaml.
//!
//! We only take syntax from libyaml: scalar resolution (YAML 1.1, as go-yaml v2), anchors,
//! merge keys, duplicate keys and the limits are ours (`document.rs`). Tried and dropped:
//! `saphyr-parser` (a YAML 1.2 parser stricter than libyaml: it rejected real argo-workflows
//! examples the server accepts) and `libyaml-safer` (panics on a block scalar at end of input
//! and on a tag before a comma; a fuzz run of 200,000 mutated inputs found no panic in
//! `unsafe-libyaml`).

#![allow(unsafe_code)]

use std::ffi::CStr;
use std::marker::PhantomData;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_y;

/// A position as libyaml reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    /// Byte offset from the start of the input.
    pub index: usize,
    /// 0-based line.
    pub line: usize,
    /// 0-based column, in characters.
    pub column: usize,
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    /// `plain`.
    Plain,
    /// `'single'`.
    SingleQuoted,
    /// `"double"`.
    DoubleQuoted,
    /// `|`.
    Literal,
    /// `>`.
    Folded,
}

/// One parse event.
#[derive(Clone, Debug, PartialEq)]
pub enum EventData {
    /// Start of the stream.
    StreamStart,
    /// End of the stream.
    StreamEnd,
    /// Start of a document.
    DocumentStart,
    /// End of a document.
    DocumentEnd,
    /// `*anchor`.
    Alias {
        /// The anchor name.
        anchor: String,
    },
    /// A scalar.
    Scalar {
        /// `&anchor`, if any.
        anchor: Option<String>,
        /// The tag, resolved (`tag:yaml.org,2002:str` for `!!str`).
        tag: Option<String>,
        /// The text.
        value: String,
        /// How it was written.
        style: ScalarStyle,
    },
    /// Start of a sequence.
    SequenceStart {
        /// `&anchor`, if any.
        anchor: Option<String>,
    },
    /// End of a sequence.
    SequenceEnd,
    /// Start of a mapping.
    MappingStart {
        /// `&anchor`, if any.
        anchor: Option<String>,
    },
    /// End of a mapping.
    MappingEnd,
}

/// An event with its range.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What happened.
    pub data: EventData,
    /// Where it starts.
    pub start: Mark,
    /// Where it ends.
    pub end: Mark,
}

/// Which stage of libyaml found a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Reading characters (encoding, control characters).
    Reader,
    /// Tokenising.
    Scanner,
    /// Building events from tokens.
    Parser,
    /// Anything else (memory).
    Other,
}

/// A syntax problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// Which stage found it.
    pub kind: ErrorKind,
    /// libyaml's problem text, e.g. `mapping values are not allowed in this context`.
    pub problem: String,
    /// Where the problem is.
    pub problem_mark: Mark,
    /// libyaml's context text, if any.
    pub context: Option<String>,
    /// Where the context starts.
    pub context_mark: Mark,
    /// For reader errors: the byte offset of the problem.
    pub problem_offset: usize,
}

/// A libyaml parser over a borrowed text.
pub struct Parser<'a> {
    parser: Box<MaybeUninit<unsafe_y::yaml_parser_t>>,
    done: bool,
    _input: PhantomData<&'a [u8]>,
}

fn mark(m: &unsafe_y::yaml_mark_t) -> Mark {
    Mark {
        index: usize::try_from(m.index).unwrap_or(usize::MAX),
        line: usize::try_from(m.line).unwrap_or(usize::MAX),
        column: usize::try_from(m.column).unwrap_or(usize::MAX),
    }
}

/// Copies a NUL-terminated libyaml string.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string that lives during the call.
unsafe fn c_string(p: *const u8) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p.cast()) };
    Some(s.to_string_lossy().into_owned())
}

/// A scalar's bytes as text: what `String::from_utf8_lossy` gives, through the standard
/// library's fast validation first (libyaml hands over valid UTF-8, so the lossy path, a
/// twentieth of a large CRD's parse, is only a fallback).
fn utf8_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn scalar_style(s: unsafe_y::yaml_scalar_style_t) -> ScalarStyle {
    match s {
        unsafe_y::YAML_SINGLE_QUOTED_SCALAR_STYLE => ScalarStyle::SingleQuoted,
        unsafe_y::YAML_DOUBLE_QUOTED_SCALAR_STYLE => ScalarStyle::DoubleQuoted,
        unsafe_y::YAML_LITERAL_SCALAR_STYLE => ScalarStyle::Literal,
        unsafe_y::YAML_FOLDED_SCALAR_STYLE => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

impl<'a> Parser<'a> {
    /// A parser over `input` (UTF-8).
    pub fn new(input: &'a str) -> Option<Parser<'a>> {
        let mut parser: Box<MaybeUninit<unsafe_y::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        // SAFETY: initialising a parser in memory we own; on failure nothing was allocated.
        let ok = unsafe { unsafe_y::yaml_parser_initialize(parser.as_mut_ptr()) }.ok;
        if !ok {
            return None;
        }
        // SAFETY: the parser is initialised; `input` is borrowed for 'a, the parser's
        // lifetime, so the pointer stays valid while the parser reads it.
        unsafe {
            unsafe_y::yaml_parser_set_input_string(
                parser.as_mut_ptr(),
                input.as_ptr(),
                input.len() as u64,
            );
        }
        Some(Parser {
            parser,
            done: false,
            _input: PhantomData,
        })
    }

    fn error(&self) -> Error {
        // SAFETY: the parser is initialised; reading its public error fields.
        let p: &unsafe_y::yaml_parser_t = unsafe { self.parser.assume_init_ref() };
        let kind = match p.error {
            unsafe_y::YAML_READER_ERROR => ErrorKind::Reader,
            unsafe_y::YAML_SCANNER_ERROR => ErrorKind::Scanner,
            unsafe_y::YAML_PARSER_ERROR => ErrorKind::Parser,
            _ => ErrorKind::Other,
        };
        // SAFETY: libyaml's problem and context are null or static NUL-terminated strings.
        let problem = unsafe { c_string(p.problem.cast()) }.unwrap_or_default();
        // SAFETY: as above.
        let context = unsafe { c_string(p.context.cast()) };
        Error {
            kind,
            problem,
            problem_mark: mark(&p.problem_mark),
            context,
            context_mark: mark(&p.context_mark),
            problem_offset: usize::try_from(p.problem_offset).unwrap_or(0),
        }
    }

    /// The next event, an error (after which no more events come), or `None` after the end
    /// of the stream.
    pub fn next_event(&mut self) -> Option<Result<Event, Error>> {
        if self.done {
            return None;
        }
        let mut ev: MaybeUninit<unsafe_y::yaml_event_t> = MaybeUninit::uninit();
        // SAFETY: the parser is initialised and not finished; `ev` is written by libyaml.
        let failed =
            unsafe { unsafe_y::yaml_parser_parse(self.parser.as_mut_ptr(), ev.as_mut_ptr()) }.fail;
        if failed {
            self.done = true;
            return Some(Err(self.error()));
        }
        // SAFETY: on success libyaml has initialised the event.
        let e: &unsafe_y::yaml_event_t = unsafe { ev.assume_init_ref() };
        // SAFETY: each arm reads the union member that matches the event type, and copies
        // strings out before the event is deleted below.
        let data = unsafe {
            match e.type_ {
                unsafe_y::YAML_STREAM_START_EVENT => EventData::StreamStart,
                unsafe_y::YAML_STREAM_END_EVENT => EventData::StreamEnd,
                unsafe_y::YAML_DOCUMENT_START_EVENT => EventData::DocumentStart,
                unsafe_y::YAML_DOCUMENT_END_EVENT => EventData::DocumentEnd,
                unsafe_y::YAML_ALIAS_EVENT => EventData::Alias {
                    anchor: c_string(e.data.alias.anchor).unwrap_or_default(),
                },
                unsafe_y::YAML_SCALAR_EVENT => {
                    let s = e.data.scalar;
                    let len = usize::try_from(s.length).unwrap_or(0);
                    let bytes = if s.value.is_null() || len == 0 {
                        &[][..]
                    } else {
                        std::slice::from_raw_parts(s.value, len)
                    };
                    EventData::Scalar {
                        anchor: c_string(s.anchor),
                        tag: c_string(s.tag),
                        value: utf8_string(bytes),
                        style: scalar_style(s.style),
                    }
                }
                unsafe_y::YAML_SEQUENCE_START_EVENT => EventData::SequenceStart {
                    anchor: c_string(e.data.sequence_start.anchor),
                },
                unsafe_y::YAML_SEQUENCE_END_EVENT => EventData::SequenceEnd,
                unsafe_y::YAML_MAPPING_START_EVENT => EventData::MappingStart {
                    anchor: c_string(e.data.mapping_start.anchor),
                },
                unsafe_y::YAML_MAPPING_END_EVENT => EventData::MappingEnd,
                _ => EventData::StreamEnd,
            }
        };
        let event = Event {
            start: mark(&e.start_mark),
            end: mark(&e.end_mark),
            data,
        };
        // SAFETY: the event was initialised by libyaml and is deleted exactly once.
        unsafe { unsafe_y::yaml_event_delete(ev.as_mut_ptr()) };
        if event.data == EventData::StreamEnd {
            self.done = true;
        }
        Some(Ok(event))
    }
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        // SAFETY: the parser was initialised in `new` (a `Parser` exists only then) and is
        // deleted only here.
        unsafe { unsafe_y::yaml_parser_delete(self.parser.as_mut_ptr()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_text_as_lossy_conversion_gives_it() {
        let cases: [&[u8]; 5] = [
            b"",
            b"plain",
            "h\u{e9}llo \u{1f600}".as_bytes(),
            b"a\xffb",
            b"\xe2\x82",
        ];
        for bytes in cases {
            assert_eq!(utf8_string(bytes), String::from_utf8_lossy(bytes));
        }
    }

    fn events(text: &str) -> Vec<Result<EventData, String>> {
        let Some(mut p) = Parser::new(text) else {
            return vec![Err("init".into())];
        };
        let mut out = Vec::new();
        while let Some(e) = p.next_event() {
            out.push(e.map(|e| e.data).map_err(|e| e.problem));
        }
        out
    }

    #[test]
    fn scalars_anchors_and_errors() {
        let ev = events("a: &x 'b'\nc: *x\n");
        assert!(ev.contains(&Ok(EventData::Scalar {
            anchor: Some("x".into()),
            tag: None,
            value: "b".into(),
            style: ScalarStyle::SingleQuoted
        })));
        assert!(ev.contains(&Ok(EventData::Alias { anchor: "x".into() })));
        let ev = events("a: b: c\n");
        assert_eq!(
            ev.last(),
            Some(&Err(
                "mapping values are not allowed in this context".to_owned()
            ))
        );
    }

    #[test]
    fn inputs_other_ports_panic_on() {
        // A block scalar at the very end without a line break, and a tag before a comma in
        // a flow sequence: libyaml handles both.
        for text in ["a: |\n  x", "[!1, 2]\n", "'", "\"\\", "a: >", "- !", "%"] {
            let _ = events(text);
        }
    }
}
