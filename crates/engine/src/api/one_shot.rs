//! A compile for one use (the CLI's `check`): the result of [`CompiledCrd::compile`] with
//! less kept for a later [`CompiledCrd::recompile`], so that a large CRD's peak memory is
//! lower.

use crate::{CompiledCrd, Options};

impl CompiledCrd {
    /// [`CompiledCrd::compile`] for a compile that is not edited afterwards: the same
    /// findings, reports and analyses, without keeping the CRD's v1 JSON (several times a
    /// large CRD's text) for comparing the next revision with. A [`CompiledCrd::recompile`]
    /// from it still gives the right result: it compiles everything again.
    pub fn compile_once(text: &str, options: &Options) -> CompiledCrd {
        CompiledCrd::compile_once_without_fixes(text, options).with_crd_fixes()
    }
}
