//! [`EditorText`]: an editor's text as the page holds it, a JavaScript string or a Rust one,
//! each made from the other only when something needs it.
//!
//! CodeMirror hands over its document (a tree of lines). Copying the text into wasm costs
//! about 12 ms for a 2.8 MB CRD, and copying it back out for the worker as much again, on
//! every keystroke; even flattening it into one JavaScript string costs several (and as
//! much again in garbage collection, and a first `trim` or `charCodeAt` on the joined string
//! flattens it once more: 15-35 ms). A keystroke in a big CRD usually only sends its
//! changed middle to the worker, so the page keeps the document and makes the JavaScript
//! string when something needs the whole text (the autosave, a whole-text post), and the
//! Rust string (once per text) when a view reads it (the CEL tab, Share, a crash message).
//! Texts the app writes itself (an example, a rewritten rule) start as Rust strings.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::JsString;
use wasm_bindgen::{JsCast, JsValue};
use yew::AttrValue;

use crate::worker_protocol::{CrdText, Splice};

/// An editor text, compared by identity (each edit makes a new one).
#[derive(Clone)]
pub struct EditorText(Rc<Inner>);

struct Inner {
    js: OnceCell<JsString>,
    rust: OnceCell<AttrValue>,
    /// For a text typed in an editor: the editor's edits and this text's place among them.
    edit: Option<(Rc<Lineage>, u64)>,
    /// For a text typed in an editor: CodeMirror's document of it (a tree of lines, which
    /// copies a part without flattening the whole string as `String.prototype.slice` does).
    doc: Option<JsValue>,
}

/// The edits of one editor, newest last: for each text it handed over (numbered in order),
/// the lengths of the start and end it kept of the one before, or `None` when that is not
/// known (the app had replaced the text). Number 0 is the text the editor opened with. A
/// page keeps one per editor.
#[derive(Default)]
pub struct Lineage {
    /// The text the editor was created with (its first edit splices it).
    root: RefCell<Weak<Inner>>,
    next: Cell<u64>,
    edits: RefCell<VecDeque<(u64, Kept)>>,
}

/// The UTF-16 lengths of the start and end an edit kept, if known.
type Kept = Option<(u32, u32)>;

/// The edits a lineage remembers (a few hundred keystrokes between two analyses is plenty).
const LINEAGE_EDITS: usize = 256;

impl Lineage {
    /// The editor was created with `text`: its first edit keeps a part of it.
    pub fn start_from(&self, text: &EditorText) {
        *self.root.borrow_mut() = Rc::downgrade(&text.0);
    }

    /// `text`'s place in the lineage: 0 for the text the editor opened with.
    fn seq_of(self: &Rc<Lineage>, text: &EditorText) -> Option<u64> {
        match &text.0.edit {
            Some((lineage, seq)) => Rc::ptr_eq(lineage, self).then_some(*seq),
            None => std::ptr::eq(self.root.borrow().as_ptr(), Rc::as_ptr(&text.0)).then_some(0),
        }
    }
}

impl EditorText {
    /// A text from an editor (no copy).
    pub fn from_js(text: JsString) -> EditorText {
        let js = OnceCell::new();
        let _ = js.set(text);
        EditorText(Rc::new(Inner {
            js,
            rust: OnceCell::new(),
            edit: None,
            doc: None,
        }))
    }

    /// An editor's document as it is (no copy): what completion and hover ask about.
    pub fn of_doc(doc: JsValue) -> EditorText {
        EditorText(Rc::new(Inner {
            js: OnceCell::new(),
            rust: OnceCell::new(),
            edit: None,
            doc: Some(doc),
        }))
    }

    /// A text an editor handed over after an edit that kept `kept` (the UTF-16 lengths of the
    /// unchanged start and end of the text it handed over before, if known): CodeMirror's
    /// document, whose string is made when first needed.
    pub fn edited(doc: JsValue, lineage: &Rc<Lineage>, kept: Option<(u32, u32)>) -> EditorText {
        let seq = lineage.next.get() + 1;
        lineage.next.set(seq);
        let mut edits = lineage.edits.borrow_mut();
        edits.push_back((seq, kept));
        if edits.len() > LINEAGE_EDITS {
            edits.pop_front();
        }
        EditorText(Rc::new(Inner {
            js: OnceCell::new(),
            rust: OnceCell::new(),
            edit: Some((lineage.clone(), seq)),
            doc: Some(doc),
        }))
    }

    /// The UTF-16 code units `from..to` of the text, copied without flattening the rest when
    /// CodeMirror's document is at hand.
    pub fn slice(&self, from: u32, to: u32) -> JsString {
        self.doc_slice(from, to)
            .unwrap_or_else(|| self.js().slice(from, to))
    }

    /// `from..to` of CodeMirror's document, when the text has one.
    fn doc_slice(&self, from: u32, to: u32) -> Option<JsString> {
        let doc = self.0.doc.as_ref()?;
        let f = js_sys::Reflect::get(doc, &"sliceString".into()).ok()?;
        let f = f.dyn_ref::<js_sys::Function>()?;
        f.call2(doc, &from.into(), &to.into())
            .ok()?
            .dyn_into::<JsString>()
            .ok()
    }

    /// Its length in UTF-16 code units (JavaScript's), without making the string.
    pub fn len16(&self) -> u32 {
        let of_doc = self
            .0
            .doc
            .as_ref()
            .and_then(|doc| js_sys::Reflect::get(doc, &"length".into()).ok()?.as_f64());
        match of_doc {
            Some(n) => n as u32,
            None => self.js().length(),
        }
    }

    /// A text the app made.
    pub fn from_rust(text: impl Into<AttrValue>) -> EditorText {
        let rust = OnceCell::new();
        let _ = rust.set(text.into());
        EditorText(Rc::new(Inner {
            js: OnceCell::new(),
            rust,
            edit: None,
            doc: None,
        }))
    }

    /// The text as a Rust string (copied out of JavaScript the first time).
    pub fn rust(&self) -> AttrValue {
        self.0
            .rust
            .get_or_init(|| match (self.0.js.get(), &self.0.doc) {
                (None, None) => AttrValue::default(),
                _ => AttrValue::from(String::from(self.js())),
            })
            .clone()
    }

    /// The text as a JavaScript string (copied out of wasm the first time).
    pub fn js(&self) -> JsString {
        self.0
            .js
            .get_or_init(|| match (&self.0.doc, self.0.rust.get()) {
                (_, Some(rust)) => JsString::from(rust.as_str()),
                (Some(doc), None) => doc.unchecked_ref::<js_sys::Object>().to_string(),
                (None, None) => JsString::from(""),
            })
            .clone()
    }

    /// The Rust string, if it exists already (no copy is made).
    pub fn rust_if_ready(&self) -> Option<AttrValue> {
        self.0.rust.get().cloned()
    }

    /// Whether two texts are equal without copying: the same text object, or two Rust
    /// strings with the same content. A text typed in an editor (a JavaScript string) equals
    /// only itself, which is what the views need: their own rewrites are Rust strings.
    pub fn same_text(&self, other: &EditorText) -> bool {
        self == other
            || matches!(
                (self.0.rust.get(), other.0.rust.get()),
                (Some(a), Some(b)) if a == b
            )
    }

    /// Its length in UTF-16 code units (JavaScript's), or bytes for a Rust-made text: only
    /// used to tell a big text from a small one.
    pub fn rough_len(&self) -> usize {
        match (self.0.js.get(), self.0.rust.get(), &self.0.doc) {
            (Some(js), _, _) => js.length() as usize,
            (None, Some(rust), _) => rust.len(),
            (None, None, Some(_)) => self.len16() as usize,
            (None, None, None) => 0,
        }
    }

    /// Whether the text is only whitespace (JavaScript's `trim`, without a copy; a document's
    /// start is looked at first, which settles it for any text that starts with a word).
    pub fn is_blank(&self) -> bool {
        const HEAD: u32 = 1024;
        if let Some(rust) = self.0.rust.get() {
            return rust.trim().is_empty();
        }
        if self.0.js.get().is_none() && self.0.doc.is_some() {
            let len = self.len16();
            if let Some(head) = self.doc_slice(0, HEAD.min(len)) {
                if head.trim().length() > 0 {
                    return false;
                }
                if len <= HEAD {
                    return true;
                }
            }
        }
        self.js().trim().length() == 0
    }

    /// Whether two texts are the same editor document or the same string (no copy): the
    /// worker already holds the text of one when it holds the other's.
    pub fn same_source(&self, other: &EditorText) -> bool {
        let same = |a: Option<&JsValue>, b: Option<&JsValue>| {
            a.zip(b).is_some_and(|(a, b)| js_sys::Object::is(a, b))
        };
        self == other
            || same(self.0.doc.as_ref(), other.0.doc.as_ref())
            || same(
                self.0.js.get().map(AsRef::as_ref),
                other.0.js.get().map(AsRef::as_ref),
            )
    }
}

impl PartialEq for EditorText {
    /// The same text object (an edit or a replacement always makes a new one).
    fn eq(&self, other: &EditorText) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Default for EditorText {
    fn default() -> EditorText {
        EditorText::from_rust(AttrValue::Static(""))
    }
}

impl CrdText for EditorText {
    fn same(&self, other: &EditorText) -> bool {
        self == other
    }

    /// Known when both texts come from the same editor and every edit between them is known.
    fn splice_from(&self, base: &EditorText) -> Option<Splice> {
        let (lineage, to) = self.0.edit.as_ref()?;
        let from = &lineage.seq_of(base)?;
        if from >= to {
            return None;
        }
        let edits = lineage.edits.borrow();
        // Every edit after `from` must still be remembered.
        if edits.front().is_none_or(|(first, _)| *first > from + 1) {
            return None;
        }
        let (mut keep_start, mut keep_end) = (u32::MAX, u32::MAX);
        for (_, kept) in edits.iter().filter(|(seq, _)| seq > from && seq <= to) {
            let (start, end) = (*kept)?;
            keep_start = keep_start.min(start);
            keep_end = keep_end.min(end);
        }
        let (base_len, len) = (base.len16(), self.len16());
        if keep_start == u32::MAX
            || u64::from(keep_start) + u64::from(keep_end) > u64::from(base_len.min(len))
        {
            return None;
        }
        Some(Splice {
            base_len,
            keep_start,
            keep_end,
        })
    }
}
