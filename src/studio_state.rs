//! A studio's whole state as one value, and the share-link format that carries it.
//!
//! A share link, an example of the gallery and an embedded playground all put a
//! [`StudioState`] into a studio: the texts (CRD, objects, old object, the Conversion tab's
//! texts) and the settings (field validation, Kubernetes version, the selected version and
//! tab). A link holds it in the URL fragment (never sent to a server):
//!
//! ```text
//! index.html#s1.<base64url of the raw-deflated JSON of the state>
//! ```
//!
//! `s1.` names the format's version: a later format gets a new prefix and [`decode`] keeps
//! reading the old ones, so a link made by an older build still opens. Fields a build does
//! not know are ignored, and missing ones take their defaults.
//!
//! # One state value, nothing lost
//!
//! The Share button, the Examples control, the iframe embed, "Open in CRD Studio" and "Restore
//! my previous work" all move this one value. `tests/fixtures/share-link-v1.txt` is a link
//! that must keep opening; a link cannot expand past 16 MiB; links stop at 64 Ki characters,
//! and beyond that Share offers the texts as one YAML file. Texts over 256 Ki characters are
//! saved compressed (`{"packed": …}`, [`pack_text`]: raw deflate level 1, base64url), about 8
//! times smaller. The deflate is `miniz_oxide` (the pure-Rust deflate behind `flate2`, small,
//! with a decompression limit) and the encoding `base64`, both compiled into the page and tested
//! natively: about 40 KB of gzipped wasm with the examples' texts.
//!
//! How the page keeps it (the studio component and its storage):
//!
//! - Opening a link or loading an example first writes the current work to
//!   `crd-studio.backup`; "Restore" swaps the two, so neither is ever lost. An opened link
//!   becomes the autosaved work and leaves the address bar, so a reload keeps later edits.
//! - Reset example and the Examples control ask first (a modal `<dialog>`, Cancel focused)
//!   unless the texts are an unchanged example, and an unchanged example never takes the slot
//!   of the user's work (`gallery::is_unchanged_example`).
//! - Two tabs: each listens to `storage` events; when another tab saves a text that differs
//!   from this tab's, this tab's autosave is held (writes nothing) and an alert offers "Load
//!   the other tab's texts" or "Keep this tab's texts", either one putting the other side
//!   aside. A tab closed while held puts its texts aside and sets
//!   `crd-studio.set-aside-on-close`, so the next load offers them back.
//! - When the engine crashes on the page's texts, a fingerprint of them is kept
//!   (`crd-studio.crashed-on`, FNV-1a); a reload with the same texts does not analyse them
//!   until the user clicks "Analyse now" or edits, so a crash never repeats on every load.
//! - Saved texts are read with the browser's `JSON.parse` (a lone surrogate loads as saved);
//!   one that cannot be read is moved to `KEY.unreadable`, never overwritten, and the load says
//!   so. A save the storage refuses (a full quota) shows an alert with a download of the texts
//!   and is retried after each edit.
//! - One studio component: `App` reads the address and renders a `Studio` with its props (its
//!   worker-protocol name, an initial state, `embed`, `lock_crd`, the full studio's address).
//!   An edit does not re-render the studio: the editors own their texts, the change handler
//!   posts the job and updates the current texts, and only answers and the app's own
//!   replacements (which bump the editors' generations) render.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use crd_studio_engine::{FieldValidation, KubernetesVersion};
use serde::{Deserialize, Deserializer, Serialize};

/// A version as a link or the autosave holds it, read once here: older links and states wrote
/// `""` for the engine's default, and a version this build does not model (a link from a
/// newer build) also falls back to the default, as it did before the field was typed.
pub fn lenient_version<'de, D: Deserializer<'de>>(d: D) -> Result<KubernetesVersion, D::Error> {
    Ok(String::deserialize(d)?.parse().unwrap_or_default())
}

/// Everything a studio shows that the user chose or typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StudioState {
    /// The CRD text.
    pub crd: String,
    /// The Object text (one or more YAML documents).
    pub object: String,
    /// The old object text (blank: the create path).
    pub old_object: String,
    /// The Previous CRD text (blank: the CRD is checked as a create).
    pub old_crd: String,
    /// The field validation mode.
    pub field_validation: FieldValidation,
    /// The Kubernetes minor version to model (`"1.37"` in a link; read leniently, see
    /// [`lenient_version`]).
    #[serde(deserialize_with = "lenient_version")]
    pub kubernetes_version: KubernetesVersion,
    /// The CRD version selected in the Stored object tab (blank: the stored one).
    pub version: String,
    /// The open tab: `problems`, `stored`, `cel`, `get`, `conversion` or `changes` (blank:
    /// problems).
    pub tab: String,
    /// The kubectl get tab's `--field-selector`.
    pub field_selector: String,
    /// The Conversion tab's target version.
    pub conversion_target: String,
    /// The Conversion tab's webhook response text.
    pub webhook_response: String,
    /// The Conversion tab's authored mappings.
    pub mappings: String,
    /// The Tests tab's cases (left out of a link when there are none, so links without
    /// cases read as before).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<crd_studio_engine::CaseTexts>,
}

/// The prefix of the current link format.
pub const PREFIX_V1: &str = "s1.";

/// The longest link fragment the Share button makes (characters). Browsers carry far longer
/// URLs (Chromium 2 MB), but mail and chat clients, and some browsers' address bars, cut
/// links much shorter; 64 Ki characters holds a 60 KB CRD several times over (texts compress
/// about 5 to 10 times).
pub const MAX_LINK_CHARS: usize = 65_536;

/// The largest state a link may expand to (bytes of JSON). A hostile link cannot make the
/// page inflate more than this.
pub const MAX_STATE_BYTES: usize = 16 << 20;

/// Why a link fragment could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// The fragment does not start with a known format prefix.
    UnknownFormat,
    /// The fragment is not valid base64url.
    NotBase64,
    /// The compressed data is broken or expands past [`MAX_STATE_BYTES`].
    BadData,
    /// The data is not a studio state.
    NotAState(String),
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::UnknownFormat => {
                write!(
                    f,
                    "this link was not made by CRD Studio (or by a newer version)"
                )
            }
            ShareError::NotBase64 => write!(f, "the link is damaged (it is not base64url)"),
            ShareError::BadData => write!(
                f,
                "the link is damaged or cut short (its data does not decompress)"
            ),
            ShareError::NotAState(e) => write!(f, "the link's data is not a studio state: {e}"),
        }
    }
}

/// The link fragment (without `#`) for `state`, in the current format.
pub fn encode(state: &StudioState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("{PREFIX_V1}{}", URL_SAFE_NO_PAD.encode(packed))
}

/// Whether a fragment (without `#`) looks like a share link, of any known format.
pub fn is_link(fragment: &str) -> bool {
    fragment.starts_with(PREFIX_V1)
}

/// The state a link fragment (with or without `#`) holds.
pub fn decode(fragment: &str) -> Result<StudioState, ShareError> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let data = fragment
        .strip_prefix(PREFIX_V1)
        .ok_or(ShareError::UnknownFormat)?;
    // Links pasted from mail sometimes keep a trailing newline or gain padding.
    let data = data.trim().trim_end_matches('=');
    let packed = URL_SAFE_NO_PAD
        .decode(data)
        .map_err(|_| ShareError::NotBase64)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
        .map_err(|_| ShareError::BadData)?;
    serde_json::from_slice(&json).map_err(|e| ShareError::NotAState(e.to_string()))
}

/// Editor texts longer than this (in characters) are autosaved compressed: a browser's
/// storage holds about 5 million characters per site, and a big CRD with a big object is
/// more than that as text.
pub const PACK_TEXT_OVER: usize = 256 * 1024;

/// A text as autosaved compressed: base64url of its raw deflate (level 1: a 5 MB text is
/// packed in tens of milliseconds, about 8 times smaller for YAML).
pub fn pack_text(text: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 1))
}

/// [`pack_text`] in steps: the text is deflated a slice at a time (the caller hands the same
/// text to every step), so that saving a big CRD never holds the page for long.
pub struct TextPacker {
    compressor: Box<miniz_oxide::deflate::core::CompressorOxide>,
    /// Bytes of the text deflated so far.
    at: usize,
    packed: Vec<u8>,
}

impl Default for TextPacker {
    fn default() -> Self {
        use miniz_oxide::deflate::core::{create_comp_flags_from_zip_params, CompressorOxide};
        // Level 1, raw deflate (no zlib header): what `compress_to_vec(text, 1)` makes.
        let flags = create_comp_flags_from_zip_params(1, 0, 0);
        TextPacker {
            compressor: Box::new(CompressorOxide::new(flags)),
            at: 0,
            packed: Vec::new(),
        }
    }
}

impl TextPacker {
    /// Deflates up to `max` more bytes of `text`; once all of it is, the packed text (as
    /// [`pack_text`] makes it; [`unpack_text`] reads it).
    pub fn step(&mut self, text: &str, max: usize) -> Option<String> {
        use miniz_oxide::deflate::core::{compress_to_output, TDEFLFlush, TDEFLStatus};
        let bytes = text.as_bytes();
        let end = bytes.len().min(self.at.saturating_add(max.max(1)));
        let last = end == bytes.len();
        let flush = if last {
            TDEFLFlush::Finish
        } else {
            TDEFLFlush::None
        };
        let mut input = bytes.get(self.at..end).unwrap_or_default();
        // The sink takes all the output, so one call takes the whole slice (and, last, ends
        // the stream); a few more are allowed before giving up on steps.
        for _ in 0..8 {
            let packed = &mut self.packed;
            let (status, used) = compress_to_output(&mut self.compressor, input, flush, |out| {
                packed.extend_from_slice(out);
                true
            });
            input = input.get(used..).unwrap_or_default();
            match status {
                TDEFLStatus::Done => return Some(URL_SAFE_NO_PAD.encode(&self.packed)),
                TDEFLStatus::Okay if input.is_empty() && !last => {
                    self.at = end;
                    return None;
                }
                TDEFLStatus::Okay => {}
                _ => break,
            }
        }
        // Not expected: the whole text at once.
        Some(pack_text(text))
    }
}

/// The text [`pack_text`] packed (`None` when `packed` is not such a text, or expands past
/// [`MAX_STATE_BYTES`]).
pub fn unpack_text(packed: &str) -> Option<String> {
    let bytes = URL_SAFE_NO_PAD.decode(packed).ok()?;
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_STATE_BYTES).ok()?;
    String::from_utf8(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_texts_come_back_whole() {
        let big = "spec:\n  items:\n".to_owned() + &"  - name: item-é\n".repeat(50_000);
        let packed = pack_text(&big);
        assert!(
            packed.len() * 4 < big.len(),
            "{} -> {}",
            big.len(),
            packed.len()
        );
        assert_eq!(unpack_text(&packed).as_deref(), Some(big.as_str()));
        assert_eq!(unpack_text("not base64 ☃"), None);
        assert_eq!(unpack_text(&URL_SAFE_NO_PAD.encode(b"not deflate")), None);
    }

    #[test]
    fn packed_in_steps_as_at_once() {
        let big = "spec:\n  items:\n".to_owned() + &"  - name: item-é\n".repeat(50_000);
        for (text, step) in [
            ("", 10),
            ("a", 1),
            ("kind: CronTab\n", 4),
            (big.as_str(), 64 * 1024),
            (big.as_str(), 100_003),
            (big.as_str(), usize::MAX),
        ] {
            let mut packer = TextPacker::default();
            let mut steps = 0;
            let packed = loop {
                steps += 1;
                if let Some(p) = packer.step(text, step) {
                    break p;
                }
                assert!(steps <= text.len() + 1, "no end");
            };
            assert_eq!(unpack_text(&packed).as_deref(), Some(text), "step {step}");
            assert_eq!(steps, text.len().div_ceil(step).max(1), "step {step}");
            assert!(packed.len() <= pack_text(text).len() + 16, "step {step}");
        }
    }

    fn sample() -> StudioState {
        StudioState {
            crd: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n".into(),
            object: "apiVersion: stable.example.com/v1\nkind: CronTab\n# ünïcödé ✓\n".into(),
            old_object: "x: 1\n".into(),
            old_crd: "kind: CustomResourceDefinition\n".into(),
            field_validation: FieldValidation::Warn,
            kubernetes_version: KubernetesVersion::new(33),
            version: "v1".into(),
            tab: "cel".into(),
            field_selector: "spec.a=b".into(),
            conversion_target: "v2".into(),
            webhook_response: "{}".into(),
            mappings: "a: b".into(),
            tests: vec![crd_studio_engine::CaseTexts {
                name: "too big".into(),
                object: "kind: CronTab\n".into(),
                old_object: Some("kind: CronTab\n".into()),
                expect: serde_json::json!({"verdict": "rejected"}),
            }],
        }
    }

    #[test]
    fn round_trip_keeps_every_field() {
        let state = sample();
        let link = encode(&state);
        assert!(link.starts_with("s1."));
        assert!(link[3..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(decode(&link), Ok(state.clone()));
        assert_eq!(decode(&format!("#{link}")), Ok(state));
    }

    /// A link made by the first build that had share links: it must always open.
    #[test]
    fn a_link_from_an_older_build_still_opens() {
        let link = include_str!("../tests/fixtures/share-link-v1.txt").trim();
        let state = decode(link).expect("the fixed v1 link opens");
        assert!(state.crd.contains("kind: CustomResourceDefinition"));
        assert!(state.crd.contains("crontabs.stable.example.com"));
        assert!(state.object.contains("kind: CronTab"));
        assert_eq!(state.field_validation, FieldValidation::Warn);
        assert_eq!(state.tab, "cel");
        assert_eq!(state.field_selector, "spec.replicas=1");
        assert_eq!(state.tests, vec![]);
    }

    #[test]
    fn unknown_fields_are_ignored_and_missing_ones_default() {
        let json = br#"{"crd":"a","future":"ignored"}"#;
        let link = format!(
            "s1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json, 6))
        );
        let state = decode(&link).unwrap();
        assert_eq!(state.crd, "a");
        assert_eq!(state.object, "");
        assert_eq!(state.field_validation, FieldValidation::Strict);
    }

    #[test]
    fn broken_links_say_why() {
        assert_eq!(decode("x1.abc"), Err(ShareError::UnknownFormat));
        assert_eq!(decode("s1.a*b"), Err(ShareError::NotBase64));
        assert_eq!(decode("s1.AAAA"), Err(ShareError::BadData));
        let cut = &encode(&sample())[..20];
        assert!(decode(cut).is_err());
        let not_state = format!(
            "s1.{}",
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"[1,2]", 6))
        );
        assert!(matches!(decode(&not_state), Err(ShareError::NotAState(_))));
    }

    #[test]
    fn a_link_cannot_expand_past_the_limit() {
        // 17 MiB of one byte compresses to a few kilobytes.
        let json = format!(
            "{{\"crd\":\"{}\"}}",
            "a".repeat(MAX_STATE_BYTES + (1 << 20))
        );
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        assert!(packed.len() < 100_000);
        let link = format!("s1.{}", URL_SAFE_NO_PAD.encode(packed));
        assert_eq!(decode(&link), Err(ShareError::BadData));
    }

    #[test]
    fn a_60_kb_crd_fits_in_a_link() {
        let mut crd = String::from("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n");
        let mut i = 0;
        while crd.len() < 60_000 {
            crd.push_str(&format!(
                "          field{i}:\n            type: string\n            description: The {i}th field, with a description as real CRDs have.\n            maxLength: {}\n",
                i * 7 % 253
            ));
            i += 1;
        }
        let link = encode(&StudioState {
            crd,
            ..StudioState::default()
        });
        assert!(link.len() < MAX_LINK_CHARS, "{} characters", link.len());
    }
}
