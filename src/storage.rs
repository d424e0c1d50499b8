//! A studio's browser storage: the localStorage keys, loading and saving the texts and
//! settings (big texts packed, unreadable ones moved aside), the [`Autosave`] that writes
//! the texts after a pause, the crash fingerprint, and the texts as a download.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crd_studio_engine::FieldValidation;
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::callback::Timeout;
use wasm_bindgen::{JsCast, JsValue};
use yew::{AttrValue, Callback};

use crate::editor_text::EditorText;
use crate::studio_live::Texts;
use crate::studio_state::{self, StudioState};
use crate::view_model::{EXAMPLE_CRD, EXAMPLE_OBJECT};
use crate::worker_boundary::PreviewQuery;

/// localStorage key of the CRD text.
pub const CRD_KEY: &str = "crd-studio.crd";
/// localStorage key of the object text.
pub const OBJECT_KEY: &str = "crd-studio.object";
/// localStorage key of the old object text (empty: no old object, the create path).
pub const OLD_OBJECT_KEY: &str = "crd-studio.old-object";
/// localStorage key of the Previous CRD text (empty: the CRD is checked as a create).
pub const OLD_CRD_KEY: &str = "crd-studio.old-crd";
/// localStorage key of the field validation mode.
pub const FIELD_VALIDATION_KEY: &str = "crd-studio.field-validation";
/// localStorage key of the Kubernetes version to model (blank: the engine's default).
pub const KUBERNETES_VERSION_KEY: &str = "crd-studio.kubernetes-version";
/// localStorage key of the kubectl get tab's `--field-selector` text.
pub const FIELD_SELECTOR_KEY: &str = "crd-studio.field-selector";
/// localStorage key of the Conversion tab's target version.
pub const CONVERSION_TARGET_KEY: &str = "crd-studio.conversion-target";
/// localStorage key of the Conversion tab's webhook response text.
pub const WEBHOOK_RESPONSE_KEY: &str = "crd-studio.webhook-response";
/// localStorage key of the Conversion tab's mapping text.
pub const MAPPINGS_KEY: &str = "crd-studio.mappings";
/// localStorage key of the Tests tab's cases (JSON; saved when they change).
pub const TESTS_KEY: &str = "crd-studio.tests";
/// Quiet time after the last edit before the texts are saved.
const AUTOSAVE_MS: u32 = 300;
/// The same when a text is over [`BIG_TEXT`] bytes.
const AUTOSAVE_BIG_MS: u32 = 2_000;
/// A text whose saving takes the page long enough to be felt while typing.
const BIG_TEXT: usize = 1 << 20;
/// localStorage key of the work a link, an example or a restore put aside (a
/// [`StudioState`] as JSON), restorable in one click.
pub const BACKUP_KEY: &str = "crd-studio.backup";
/// A fingerprint of the texts the engine last crashed on (the page's studio): a reload with
/// the same texts waits for the user instead of crashing again.
pub(crate) const CRASHED_ON_KEY: &str = "crd-studio.crashed-on";
/// Set when a tab was closed holding texts it could not save (another tab had saved different
/// ones): they were put aside, and the next load offers them back.
pub(crate) const SET_ASIDE_ON_CLOSE_KEY: &str = "crd-studio.set-aside-on-close";

/// The autosaved texts (the first-visit example for a text never saved).
pub(crate) fn load_texts() -> Texts {
    Texts {
        crd: load_text(CRD_KEY).unwrap_or_else(|| EditorText::from_rust(EXAMPLE_CRD)),
        object: load_text(OBJECT_KEY).unwrap_or_else(|| EditorText::from_rust(EXAMPLE_OBJECT)),
        old_object: load_text(OLD_OBJECT_KEY).unwrap_or_default(),
        old_crd: load_text(OLD_CRD_KEY).unwrap_or_default(),
    }
}

/// A saved editor text, parsed by the browser's `JSON.parse` into the JavaScript string the
/// editor takes: a text holding a lone surrogate (which the editor accepts and
/// `JSON.stringify` escapes) loads as it was saved; serde would refuse it.
fn load_text(key: &str) -> Option<EditorText> {
    let raw = LocalStorage::raw().get_item(key).ok()??;
    let value = js_sys::JSON::parse(&raw).ok()?;
    if let Some(packed) = packed_of(&value) {
        return studio_state::unpack_text(&packed).map(EditorText::from_rust);
    }
    value
        .dyn_into::<js_sys::JsString>()
        .ok()
        .map(EditorText::from_js)
}

/// The packed text of a saved value `{"packed": "…"}` (a big text, saved compressed).
fn packed_of(value: &JsValue) -> Option<String> {
    if !value.is_object() {
        return None;
    }
    js_sys::Reflect::get(value, &"packed".into())
        .ok()?
        .as_string()
}

/// Saved texts that cannot be read are moved aside (`KEY.unreadable`, never overwritten),
/// so the next save cannot destroy them; returns the texts' names.
pub(crate) fn rescue_unreadable() -> Vec<&'static str> {
    let storage = LocalStorage::raw();
    let mut moved = Vec::new();
    for (key, name) in [
        (CRD_KEY, "CRD"),
        (OBJECT_KEY, "object"),
        (OLD_OBJECT_KEY, "old object"),
        (OLD_CRD_KEY, "previous CRD"),
    ] {
        let Ok(Some(raw)) = storage.get_item(key) else {
            continue;
        };
        let readable = js_sys::JSON::parse(&raw).ok().is_some_and(|v| {
            v.is_string() || packed_of(&v).is_some_and(|p| studio_state::unpack_text(&p).is_some())
        });
        if readable {
            continue;
        }
        let aside = format!("{key}.unreadable");
        if storage.get_item(&aside).ok().flatten().is_none() {
            let _ = storage.set_item(&aside, &raw);
        }
        let _ = storage.remove_item(key);
        moved.push(name);
    }
    moved
}

/// The tabs' saved settings (the kubectl get and Conversion tabs').
pub(crate) fn load_query() -> PreviewQuery {
    let load = |key: &str| LocalStorage::get::<String>(key).unwrap_or_default();
    PreviewQuery {
        field_selector: load(FIELD_SELECTOR_KEY),
        target: load(CONVERSION_TARGET_KEY),
        webhook_response: load(WEBHOOK_RESPONSE_KEY),
        mappings: load(MAPPINGS_KEY),
        ..PreviewQuery::default()
    }
}

/// Saves a value under `key` as JSON (a failure is logged: the page goes on).
pub(crate) fn save(key: &str, value: &impl serde::Serialize) {
    if let Err(e) = LocalStorage::set(key, value) {
        gloo::console::warn!(format!("could not save {key}: {e}"));
    }
}

/// Saves an editor text: a Rust string as usual; the editor's own JavaScript string with
/// `JSON.stringify`, so a big CRD is not copied into wasm to be saved.
fn save_text(key: &str, text: &EditorText) -> Result<(), String> {
    // `Storage.setItem` called with the JavaScript string itself: web-sys's binding takes a
    // `&str`, which would copy the JSON into wasm and back out (and could not hold a lone
    // surrogate, which `JSON.stringify` escapes).
    // A big text is saved compressed, as `{"packed": "…"}` (see `studio_state::pack_text`).
    let json = if text.rough_len() > studio_state::PACK_TEXT_OVER {
        packed_json(&studio_state::pack_text(&text.rust()))
    } else {
        js_sys::JSON::stringify(&text.js()).map_err(|_| "the text could not be encoded")?
    };
    write_json(key, &json, text)
}

/// What a big text is saved as: `{"packed": "…"}`.
fn packed_json(packed: &str) -> js_sys::JsString {
    js_sys::JsString::from(serde_json::json!({ "packed": packed }).to_string())
}

/// Stores `json`, the saved form of `text`, under `key`.
fn write_json(key: &str, json: &JsValue, text: &EditorText) -> Result<(), String> {
    let storage = js_sys::Reflect::get(&gloo::utils::window(), &"localStorage".into())
        .map_err(|_| "this browser gives the page no storage")?;
    let set_item = js_sys::Reflect::get(&storage, &"setItem".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or("this browser gives the page no storage")?;
    set_item
        .call2(&storage, &JsValue::from_str(key), json)
        .map(|_| ())
        .map_err(|e| {
            // A full storage throws a `QuotaExceededError` DOMException.
            let name = js_sys::Reflect::get(&e, &"name".into())
                .ok()
                .and_then(|n| n.as_string())
                .unwrap_or_default();
            if name == "QuotaExceededError" {
                format!(
                    "the browser's storage is full ({} MB of text)",
                    (text.rough_len() + 500_000) / 1_000_000
                )
            } else {
                format!("the browser refused to store it ({name})")
            }
        })
}

/// The texts of a state as one YAML file (the CRD, then the objects; `kubectl apply -f`
/// takes it as it is), as a download address.
pub(crate) fn download_text(state: &StudioState) -> String {
    let mut text =
        String::from("# CRD Studio: the CRD (crd.yaml), then the objects (object.yaml)\n");
    text.push_str(state.crd.trim_end());
    text.push_str("\n---\n");
    text.push_str(state.object.trim_end());
    text.push('\n');
    if !state.old_object.trim().is_empty() {
        text.push_str("---\n# The old object (old-object.yaml):\n");
        text.push_str(state.old_object.trim_end());
        text.push('\n');
    }
    if !state.old_crd.trim().is_empty() {
        text.push_str("---\n# The previous revision of the CRD (previous-crd.yaml):\n");
        text.push_str(state.old_crd.trim_end());
        text.push('\n');
    }
    let parts = js_sys::Array::of1(&JsValue::from_str(&text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/yaml");
    web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .and_then(|blob| web_sys::Url::create_object_url_with_blob(&blob))
        .unwrap_or_default()
}

/// Saves the texts shortly after the last edit (a big CRD costs milliseconds to store, which
/// a keystroke should not pay), and at once when the page is hidden or closed. Only the texts
/// that changed since they were last saved are written; the texts as loaded are not saved
/// back (another tab may have saved newer ones). After the quiet time a big text is packed a
/// slice per task ([`studio_state::TextPacker`]): its save never holds the page for long.
#[derive(Clone, Default)]
pub(crate) struct Autosave {
    /// The timer and the texts it will save.
    pub(crate) pending: Rc<RefCell<Option<(Timeout, Texts)>>>,
    /// The texts as last saved (CRD, object, old object, previous CRD).
    saved: Rc<RefCell<[Option<EditorText>; 4]>>,
    /// Set while another tab has saved texts that differ from this tab's: nothing is written
    /// (it would overwrite them silently) until the user chooses whose texts to keep.
    pub(crate) held: Rc<Cell<bool>>,
    /// Told after each save: why it failed, or `None` when everything was saved.
    pub(crate) report: Rc<RefCell<Option<Callback<Option<String>>>>>,
    /// The save the timer started, when it takes more than one task.
    round: Rc<RefCell<Option<Round>>>,
}

/// A save in steps: the texts, which were tried, why one failed, and the big text being
/// packed (its index, its string, the packer) with the timer of the next step.
struct Round {
    texts: Texts,
    tried: [bool; 4],
    failure: Option<String>,
    packing: Option<(usize, AttrValue, studio_state::TextPacker)>,
    next: Option<Timeout>,
}

/// The bytes of a big text packed per task (a few milliseconds each).
const PACK_STEP_BYTES: usize = 128 * 1024;

/// The texts with their storage keys, in the order saved.
fn keyed(texts: &Texts) -> [(&'static str, &EditorText); 4] {
    [
        (CRD_KEY, &texts.crd),
        (OBJECT_KEY, &texts.object),
        (OLD_OBJECT_KEY, &texts.old_object),
        (OLD_CRD_KEY, &texts.old_crd),
    ]
}

impl Autosave {
    /// Saves `texts` after a quiet time (longer while a text is big); a later call replaces
    /// the unsaved texts.
    pub(crate) fn schedule(&self, texts: Texts) {
        // Storing megabytes blocks the page for tens of milliseconds: while such a text is
        // being typed, wait for a longer pause.
        let big = [&texts.crd, &texts.object, &texts.old_object, &texts.old_crd]
            .iter()
            .any(|t| t.rough_len() > BIG_TEXT);
        let delay = if big { AUTOSAVE_BIG_MS } else { AUTOSAVE_MS };
        // A save in steps of older texts stops: these are saved after the pause.
        self.round.borrow_mut().take();
        let me = self.clone();
        let timer = Timeout::new(delay, move || me.start_round());
        *self.pending.borrow_mut() = Some((timer, texts));
    }

    /// The quiet time is over: saves the unsaved texts in steps.
    fn start_round(&self) {
        let Some(texts) = self.pending.borrow().as_ref().map(|(_, t)| t.clone()) else {
            return;
        };
        *self.round.borrow_mut() = Some(Round {
            texts,
            tried: [false; 4],
            failure: None,
            packing: None,
            next: None,
        });
        self.step();
    }

    /// One step of the round: a slice of the big text being packed (written once whole),
    /// or the next unsaved text (a small one written at once, a big one's packing started);
    /// the next step follows in a new task. The last step reports.
    fn step(&self) {
        if self.held.get() {
            self.round.borrow_mut().take();
            return;
        }
        let mut slot = self.round.borrow_mut();
        let Some(round) = slot.as_mut() else {
            return;
        };
        let mut saved = self.saved.borrow_mut();
        if let Some((i, rust, packer)) = round.packing.as_mut() {
            let i = *i;
            let Some(packed) = packer.step(rust.as_str(), PACK_STEP_BYTES) else {
                let me = self.clone();
                round.next = Some(Timeout::new(0, move || me.step()));
                return;
            };
            round.packing = None;
            if let Some((key, text)) = keyed(&round.texts).get(i).copied() {
                match write_json(key, &packed_json(&packed), text) {
                    Ok(()) => saved[i] = Some(text.clone()),
                    Err(e) => round.failure = Some(e),
                }
            }
        }
        for (i, (key, text)) in keyed(&round.texts).into_iter().enumerate() {
            if round.tried[i] || saved[i].as_ref() == Some(text) {
                continue;
            }
            round.tried[i] = true;
            if text.rough_len() > studio_state::PACK_TEXT_OVER {
                let packer = studio_state::TextPacker::default();
                round.packing = Some((i, text.rust(), packer));
                let me = self.clone();
                round.next = Some(Timeout::new(0, move || me.step()));
                return;
            }
            match save_text(key, text) {
                Ok(()) => saved[i] = Some(text.clone()),
                // Not marked saved: the next save tries again.
                Err(e) => round.failure = Some(e),
            }
        }
        let Some(round) = slot.take() else {
            return;
        };
        drop(slot);
        drop(saved);
        // Saved: nothing is pending unless newer texts came meanwhile.
        let mut pending = self.pending.borrow_mut();
        if let Some((_, texts)) = pending.as_ref() {
            if keyed(texts).map(|(_, t)| t) == keyed(&round.texts).map(|(_, t)| t) {
                pending.take();
            }
        }
        drop(pending);
        if let Some(report) = self.report.borrow().as_ref() {
            report.emit(round.failure);
        }
    }

    /// Saves the unsaved texts now (unless held).
    pub(crate) fn flush(&self) {
        if self.held.get() {
            return;
        }
        // A save in steps is overtaken: everything is written in this task.
        self.round.borrow_mut().take();
        let Some((_, texts)) = self.pending.borrow_mut().take() else {
            return;
        };
        let mut saved = self.saved.borrow_mut();
        let mut failure = None;
        for ((key, text), last) in keyed(&texts).into_iter().zip(saved.iter_mut()) {
            if last.as_ref() != Some(text) {
                match save_text(key, text) {
                    Ok(()) => *last = Some(text.clone()),
                    // Not marked saved: the next flush tries again.
                    Err(e) => failure = Some(e),
                }
            }
        }
        drop(saved);
        if let Some(report) = self.report.borrow().as_ref() {
            report.emit(failure);
        }
    }
}

impl Autosave {
    /// Stops writing: another tab saved different texts.
    pub(crate) fn hold(&self) {
        self.held.set(true);
    }

    /// Saves every text now, over whatever another tab saved, and writes again after edits.
    pub(crate) fn save_all_now(&self, texts: Texts) {
        self.held.set(false);
        *self.saved.borrow_mut() = Default::default();
        let timer = Timeout::new(0, || ());
        *self.pending.borrow_mut() = Some((timer, texts));
        self.flush();
    }

    /// Writes again after edits, without saving now (the texts are the saved ones).
    pub(crate) fn release(&self) {
        self.held.set(false);
    }
}

/// The autosaved work as a state.
pub(crate) fn saved_state() -> StudioState {
    let texts = load_texts();
    let query = load_query();
    StudioState {
        crd: texts.crd.rust().to_string(),
        object: texts.object.rust().to_string(),
        old_object: texts.old_object.rust().to_string(),
        old_crd: texts.old_crd.rust().to_string(),
        field_validation: LocalStorage::get::<FieldValidation>(FIELD_VALIDATION_KEY)
            .unwrap_or_default(),
        kubernetes_version: stored_kubernetes_version(),
        field_selector: query.field_selector,
        conversion_target: query.target,
        webhook_response: query.webhook_response,
        mappings: query.mappings,
        tests: load_tests(),
        ..StudioState::default()
    }
}

/// The autosaved Kubernetes version, read as a share link's (blank or unknown: the default).
pub(crate) fn stored_kubernetes_version() -> crd_studio_engine::KubernetesVersion {
    let text = LocalStorage::get::<String>(KUBERNETES_VERSION_KEY).unwrap_or_default();
    crate::studio_state::lenient_version(serde_json::Value::String(text)).unwrap_or_default()
}

/// Makes `state` the autosaved work.
pub(crate) fn store_state(state: &StudioState) {
    save(CRD_KEY, &state.crd);
    save(OBJECT_KEY, &state.object);
    save(OLD_OBJECT_KEY, &state.old_object);
    save(OLD_CRD_KEY, &state.old_crd);
    save(FIELD_VALIDATION_KEY, &state.field_validation);
    save(KUBERNETES_VERSION_KEY, &state.kubernetes_version);
    save(FIELD_SELECTOR_KEY, &state.field_selector);
    save(CONVERSION_TARGET_KEY, &state.conversion_target);
    save(WEBHOOK_RESPONSE_KEY, &state.webhook_response);
    save(MAPPINGS_KEY, &state.mappings);
    save(TESTS_KEY, &state.tests);
}

/// The autosaved Tests tab cases (none when never saved or unreadable).
pub(crate) fn load_tests() -> Vec<crd_studio_engine::CaseTexts> {
    LocalStorage::get(TESTS_KEY).unwrap_or_default()
}

/// A short fingerprint of texts (64-bit FNV-1a over them, separated), to recognise the texts
/// the engine crashed on without storing them twice.
pub(crate) fn fingerprint(texts: [AttrValue; 3]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for t in &texts {
        for b in t.as_bytes().iter().chain(std::iter::once(&0xff)) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
