//! [`EditorText`]: an editor's text as the page holds it, a JavaScript string or a Rust one,
//! each made from the other only when something needs it.
//!
//! CodeMirror hands over its text as a JavaScript string. Copying it into wasm costs about
//! 12 ms for a 2.8 MB CRD, and copying it back out for the worker as much again, on every
//! keystroke. The CRD text usually only travels on to the worker, so the page keeps the
//! JavaScript string and posts it as it is; the Rust string is made (once per text) when a
//! view reads it (the CEL tab, Share, a crash message). Texts the app writes itself (an
//! example, a rewritten rule) start as Rust strings.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

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
/// known (the app had replaced the text). A page keeps one per editor.
#[derive(Default)]
pub struct Lineage {
    next: Cell<u64>,
    edits: RefCell<VecDeque<(u64, Kept)>>,
}

/// The UTF-16 lengths of the start and end an edit kept, if known.
type Kept = Option<(u32, u32)>;

/// The edits a lineage remembers (a few hundred keystrokes between two analyses is plenty).
const LINEAGE_EDITS: usize = 256;

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

    /// A text an editor handed over after an edit that kept `kept` (the UTF-16 lengths of the
    /// unchanged start and end of the text it handed over before, if known).
    pub fn edited(
        text: JsString,
        doc: JsValue,
        lineage: &Rc<Lineage>,
        kept: Option<(u32, u32)>,
    ) -> EditorText {
        let seq = lineage.next.get() + 1;
        lineage.next.set(seq);
        let mut edits = lineage.edits.borrow_mut();
        edits.push_back((seq, kept));
        if edits.len() > LINEAGE_EDITS {
            edits.pop_front();
        }
        let js = OnceCell::new();
        let _ = js.set(text);
        EditorText(Rc::new(Inner {
            js,
            rust: OnceCell::new(),
            edit: Some((lineage.clone(), seq)),
            doc: (!doc.is_undefined() && !doc.is_null()).then_some(doc),
        }))
    }

    /// The UTF-16 code units `from..to` of the text, copied without flattening the rest when
    /// CodeMirror's document is at hand.
    pub fn slice(&self, from: u32, to: u32) -> JsString {
        let from_doc = self.0.doc.as_ref().and_then(|doc| {
            let f = js_sys::Reflect::get(doc, &"sliceString".into()).ok()?;
            let f = f.dyn_ref::<js_sys::Function>()?;
            f.call2(doc, &from.into(), &to.into())
                .ok()?
                .dyn_into::<JsString>()
                .ok()
        });
        from_doc.unwrap_or_else(|| self.js().slice(from, to))
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
            .get_or_init(|| match self.0.js.get() {
                Some(js) => AttrValue::from(String::from(js)),
                None => AttrValue::default(),
            })
            .clone()
    }

    /// The text as a JavaScript string (copied out of wasm the first time).
    pub fn js(&self) -> JsString {
        self.0
            .js
            .get_or_init(|| match self.0.rust.get() {
                Some(rust) => JsString::from(rust.as_str()),
                None => JsString::from(""),
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
        match (self.0.js.get(), self.0.rust.get()) {
            (Some(js), _) => js.length() as usize,
            (None, Some(rust)) => rust.len(),
            (None, None) => 0,
        }
    }

    /// Whether the text is only whitespace (JavaScript's `trim`, without a copy).
    pub fn is_blank(&self) -> bool {
        match (self.0.rust.get(), self.0.js.get()) {
            (Some(rust), _) => rust.trim().is_empty(),
            (None, Some(js)) => js.trim().length() == 0,
            (None, None) => true,
        }
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
        let ((lineage, to), (base_lineage, from)) = (self.0.edit.as_ref()?, base.0.edit.as_ref()?);
        if !Rc::ptr_eq(lineage, base_lineage) || from >= to {
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
        let (base_len, len) = (base.js().length(), self.js().length());
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
