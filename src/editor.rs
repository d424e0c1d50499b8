//! A code editor component: CodeMirror 6 through `window.CrdEditor` (the bundle built from
//! `web/editor.js`), or a plain `<textarea>` when that bundle is not on the page (it failed to
//! build or load, or the app runs in the wasm test runner's page).

use std::cell::RefCell;
use std::rc::Rc;

use gloo::console;
use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlTextAreaElement};
use yew::prelude::*;

use crate::assist::{AssistKind, AssistRequest};
use crate::editor_text::{EditorText, Lineage};
use crate::view_model::{EditorDiagnostic, EditorFix};
use crd_studio_engine::{utf16_offset_of_line_column, Editor};

#[wasm_bindgen]
extern "C" {
    /// The object `web/editor.js` puts at `window.CrdEditor`.
    type CrdEditorApi;

    #[wasm_bindgen(method, catch)]
    fn create(this: &CrdEditorApi, parent: &Element, options: &JsValue)
        -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = setDiagnostics)]
    fn set_diagnostics(
        this: &CrdEditorApi,
        handle: &JsValue,
        diags: &JsValue,
    ) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = focusAt)]
    fn focus_at(this: &CrdEditorApi, handle: &JsValue, line: u32, col: u32) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = setDoc)]
    fn set_doc(this: &CrdEditorApi, handle: &JsValue, text: &JsString) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = applyEdits)]
    fn apply_edits(this: &CrdEditorApi, handle: &JsValue, edits: &JsValue) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch)]
    fn destroy(this: &CrdEditorApi, handle: &JsValue) -> Result<(), JsValue>;
}

/// `window.CrdEditor`, when the editor bundle is loaded.
fn editor_api() -> Option<CrdEditorApi> {
    let value =
        js_sys::Reflect::get(&gloo::utils::window(), &JsValue::from_str("CrdEditor")).ok()?;
    value.is_object().then(|| value.unchecked_into())
}

fn log_js_error(what: &str, result: Result<(), JsValue>) {
    if let Err(e) = result {
        console::error!(format!("CrdEditor.{what} failed"), e);
    }
}

/// `options.assist(kind, text, utf16Offset, resolve)` of `web/editor.js`.
type AssistClosure = Closure<dyn FnMut(String, JsValue, u32, js_sys::Function)>;

enum Backend {
    CodeMirror {
        api: CrdEditorApi,
        handle: JsValue,
        // Called by JavaScript on every edit; lives as long as the editor.
        _on_change: Closure<dyn FnMut(JsValue, f64, f64)>,
        // Called by JavaScript for completion and hover; lives as long as the editor.
        _assist: Option<AssistClosure>,
    },
    TextArea(HtmlTextAreaElement),
}

/// A handle the parent keeps to drive an editor it rendered (focus it at a position).
#[derive(Clone, Default)]
pub struct EditorControl(Rc<RefCell<Control>>);

/// The editor behind an [`EditorControl`].
#[derive(Default)]
struct Control {
    backend: Option<Backend>,
}

impl PartialEq for EditorControl {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl EditorControl {
    /// Puts the cursor at 1-based `line` and 1-based UTF-16 `column` and focuses the editor.
    pub fn focus_at(&self, line: usize, utf16_column: usize) {
        match &self.0.borrow().backend {
            Some(Backend::CodeMirror { api, handle, .. }) => log_js_error(
                "focusAt",
                api.focus_at(handle, clamp_u32(line), clamp_u32(utf16_column)),
            ),
            Some(Backend::TextArea(ta)) => {
                let at = clamp_u32(utf16_offset_of_line_column(&ta.value(), line, utf16_column));
                let _ = ta.focus();
                let _ = ta.set_selection_range(at, at);
            }
            None => {}
        }
    }

    /// Shows `diagnostics` at once, in the task of the answer that brought them (before the
    /// frame that shows the answer's Problems list). A mark over the same range as the one
    /// shown (the usual keystroke: the lint marks grow with a character typed at their end,
    /// `web/build.mjs`) changes no DOM and costs well under a millisecond; a changed range
    /// redraws its line, and the layout that forces is the coming frame's own.
    fn set_diagnostics(&self, diagnostics: &[EditorDiagnostic]) {
        if let Some(Backend::CodeMirror { api, handle, .. }) = &self.0.borrow().backend {
            let json = serde_json::to_string(diagnostics).unwrap_or_else(|_| "[]".to_owned());
            match js_sys::JSON::parse(&json) {
                Ok(diags) => log_js_error("setDiagnostics", api.set_diagnostics(handle, &diags)),
                Err(e) => console::error!("diagnostics JSON", e),
            }
        }
    }

    /// Applies a finding's repair as an edit by the user (the change handler runs; Undo
    /// takes it back).
    pub fn apply_fix(&self, fix: &EditorFix) {
        if let Some(Backend::CodeMirror { api, handle, .. }) = &self.0.borrow().backend {
            let json = serde_json::to_string(&fix.edits).unwrap_or_else(|_| "[]".to_owned());
            match js_sys::JSON::parse(&json) {
                Ok(edits) => log_js_error("applyEdits", api.apply_edits(handle, &edits)),
                Err(e) => console::error!("edits JSON", e),
            }
        }
    }

    fn set_text(&self, text: &EditorText) {
        match &self.0.borrow().backend {
            Some(Backend::CodeMirror { api, handle, .. }) => {
                log_js_error("setDoc", api.set_doc(handle, &text.js()))
            }
            Some(Backend::TextArea(ta)) => ta.set_value(&text.rust()),
            None => {}
        }
    }

    fn destroy(&self) {
        if let Some(Backend::CodeMirror { api, handle, .. }) = self.0.borrow_mut().backend.take() {
            log_js_error("destroy", api.destroy(&handle));
        }
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Properties of [`CodeEditor`]. The text compares by identity (see
/// [`crate::editor_text`]).
#[derive(Properties)]
pub struct CodeEditorProps {
    /// The accessible name (`aria-label`) of the editable element.
    pub label: AttrValue,
    /// The text. The editor shows it when it is created and whenever `generation` changes;
    /// in between, the editor owns the text and reports edits through `on_change`.
    pub text: EditorText,
    /// Bumped by the parent when it replaces the text (e.g. "Reset example").
    pub generation: u32,
    /// Inline markers.
    pub diagnostics: Rc<Vec<EditorDiagnostic>>,
    /// Called with the whole text after every edit by the user (the editor's own document,
    /// not copied into wasm nor joined into one string).
    pub on_change: Callback<EditorText>,
    /// Lets the parent focus the editor at a position.
    pub control: EditorControl,
    /// The text cannot be edited (it can still be read, selected and copied).
    #[prop_or_default]
    pub read_only: bool,
    /// Completion and hover from the engine's worker: the studio and which editor this is.
    #[prop_or_default]
    pub assist: Option<(AttrValue, Editor)>,
}

impl PartialEq for CodeEditorProps {
    fn eq(&self, other: &CodeEditorProps) -> bool {
        self.label == other.label
            && self.text == other.text
            && self.generation == other.generation
            && self.diagnostics == other.diagnostics
            && self.on_change == other.on_change
            && self.control == other.control
            && self.read_only == other.read_only
            && self.assist == other.assist
    }
}

/// A YAML editor: CodeMirror when the bundle is loaded, else a textarea.
#[component]
pub fn CodeEditor(props: &CodeEditorProps) -> Html {
    let host = use_node_ref();
    let textarea = use_node_ref();
    let code_mirror = use_state(|| editor_api().is_some());
    // The newest on_change, so the JavaScript closure made once at mount always calls it.
    let on_change = use_mut_ref(|| props.on_change.clone());
    *on_change.borrow_mut() = props.on_change.clone();

    {
        let host = host.clone();
        let textarea = textarea.clone();
        let control = props.control.clone();
        let label = props.label.clone();
        let read_only = props.read_only;
        let assist = props.assist.clone();
        let text = props.text.clone();
        let on_change = on_change.clone();
        let code_mirror = code_mirror.clone();
        use_effect_with(*code_mirror, move |&use_code_mirror| {
            if use_code_mirror {
                let created = match (editor_api(), host.cast::<Element>()) {
                    (Some(api), Some(parent)) => create_code_mirror(
                        api, &parent, &label, &text, read_only, on_change, assist,
                    ),
                    _ => Err(JsValue::from_str("no CrdEditor API or no host element")),
                };
                match created {
                    Ok(backend) => control.0.borrow_mut().backend = Some(backend),
                    Err(e) => {
                        console::error!("CodeMirror editor unavailable, using a textarea", e);
                        code_mirror.set(false);
                    }
                }
            } else if let Some(ta) = textarea.cast::<HtmlTextAreaElement>() {
                control.0.borrow_mut().backend = Some(Backend::TextArea(ta));
            }
            move || control.destroy()
        });
    }
    {
        let control = props.control.clone();
        let text = props.text.clone();
        use_effect_with(props.generation, move |_| control.set_text(&text));
    }
    {
        let control = props.control.clone();
        use_effect_with(props.diagnostics.clone(), move |d| {
            control.set_diagnostics(d)
        });
    }

    if *code_mirror {
        html! { <div class="editor-host" ref={host}></div> }
    } else {
        let oninput = {
            let on_change = on_change.clone();
            Callback::from(move |e: InputEvent| {
                let ta: HtmlTextAreaElement = e.target_unchecked_into();
                let cb = on_change.borrow().clone();
                cb.emit(EditorText::from_rust(ta.value()));
            })
        };
        html! {
            <textarea
                class="editor-fallback"
                ref={textarea}
                aria-label={props.label.clone()}
                spellcheck="false"
                autocomplete="off"
                wrap="off"
                readonly={props.read_only}
                value={props.text.rust()}
                {oninput}
            />
        }
    }
}

fn create_code_mirror(
    api: CrdEditorApi,
    parent: &Element,
    label: &str,
    text: &EditorText,
    read_only: bool,
    on_change: Rc<RefCell<Callback<EditorText>>>,
    assist: Option<(AttrValue, Editor)>,
) -> Result<Backend, JsValue> {
    // The editor's texts, each with what it kept of the one before (the worker then gets
    // only the changed middle of a big CRD).
    let lineage = Rc::new(Lineage::default());
    lineage.start_from(text);
    let closure = Closure::<dyn FnMut(JsValue, f64, f64)>::new(
        move |doc: JsValue, keep_start: f64, keep_end: f64| {
            let kept = (keep_start >= 0.0 && keep_end >= 0.0)
                .then_some((keep_start as u32, keep_end as u32));
            let cb = on_change.borrow().clone();
            cb.emit(EditorText::edited(doc, &lineage, kept));
        },
    );
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"doc".into(), &text.js())?;
    js_sys::Reflect::set(&options, &"label".into(), &JsValue::from_str(label))?;
    js_sys::Reflect::set(&options, &"onChange".into(), closure.as_ref())?;
    js_sys::Reflect::set(&options, &"readOnly".into(), &JsValue::from_bool(read_only))?;
    let assist = assist.filter(|_| !read_only).map(|(studio, editor)| {
        AssistClosure::new(
            move |kind: String, doc: JsValue, offset: u32, resolve: js_sys::Function| {
                let request = AssistRequest {
                    studio: studio.to_string(),
                    id: 0,
                    kind: if kind == "hover" {
                        AssistKind::Hover
                    } else {
                        AssistKind::Complete
                    },
                    editor,
                    offset: offset as usize,
                    text: String::new(),
                    case: None,
                    tests: Vec::new(),
                };
                crate::worker_client::assist(
                    request,
                    Some(EditorText::of_doc(doc)),
                    Box::new(move |answer| {
                        let json = serde_json::to_string(&answer).unwrap_or_default();
                        let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(&json));
                    }),
                );
            },
        )
    });
    if let Some(a) = &assist {
        js_sys::Reflect::set(&options, &"assist".into(), a.as_ref())?;
    }
    let handle = api.create(parent, &options)?;
    Ok(Backend::CodeMirror {
        api,
        handle,
        _on_change: closure,
        _assist: assist,
    })
}
