//! A compile for one use (the CLI's `check`): the result of [`CompiledCrd::compile`] (and
//! [`CompiledCrd::with_previous`]) with less kept for a later [`CompiledCrd::recompile`], so
//! that a large CRD's peak memory is lower.

use std::rc::Rc;

use crate::{CompiledCrd, Options, PreviousCrd};

impl CompiledCrd {
    /// [`CompiledCrd::compile`] then [`CompiledCrd::with_previous`], for a CRD text that is
    /// not edited afterwards: the same findings, reports and analyses, keeping the text given
    /// (not a copy) and not the CRD's v1 JSON (several times a large CRD's text) for comparing
    /// a next revision with. A [`CompiledCrd::recompile`] from it still gives the right
    /// result: it compiles everything again.
    pub fn compile_once(
        text: String,
        options: &Options,
        previous: Option<Rc<PreviousCrd>>,
    ) -> CompiledCrd {
        let text: Rc<str> = Rc::from(text);
        let compiled =
            CompiledCrd::compile_once_without_fixes(Rc::clone(&text), options).with_crd_fixes();
        compiled.with_previous(&text, previous)
    }
}
