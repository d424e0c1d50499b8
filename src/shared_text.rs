//! [`SharedText`]: an editor text shared between the page's components, compared by identity
//! first.
//!
//! Yew compares props and effect dependencies on every render, and `AttrValue` compares its
//! content: for a megabytes-long CRD that is a full byte-by-byte comparison (wasm's `memcmp`
//! is slow) several times per keystroke, even when the text did not change. Two
//! `SharedText`s holding the same allocation are equal without looking at the bytes.

use std::ops::Deref;

use yew::AttrValue;

/// A text compared by identity first, then by content.
#[derive(Clone, Debug, Default)]
pub struct SharedText(pub AttrValue);

impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        std::ptr::eq(self.0.as_str(), other.0.as_str()) || self.0 == other.0
    }
}

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<AttrValue> for SharedText {
    fn from(value: AttrValue) -> SharedText {
        SharedText(value)
    }
}

impl SharedText {
    /// The text as a reference-counted string (no copy unless it is a static text).
    pub fn to_rc(&self) -> std::rc::Rc<str> {
        match &self.0 {
            AttrValue::Rc(rc) => rc.clone(),
            AttrValue::Static(s) => std::rc::Rc::from(*s),
        }
    }
}
