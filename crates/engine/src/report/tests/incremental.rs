//! `CompiledCrd::recompile` equals a fresh `CompiledCrd::compile` after random edits of real
//! corpus CRDs (fixed-seed PRNG), and in hand-written edge cases.
//!
//! # How a CRD edit recompiles (what this checks)
//!
//! `CompiledCrd::recompile(text, options)`, what the worker calls on a CRD keystroke, does two
//! things. *Parse*: `document::reparse_tracked` parses again only the entries the edit touched
//! and takes the rest of the tree from the previous parse, spans shifted by the bytes and
//! lines gained. The entries are those of the deepest block mapping holding the edit whose
//! keys start their lines after the same `n` spaces (from the last entry whose key starts
//! before the first changed byte up to the first entry whose line starts at or after the
//! change's end, so never in the last entry): their lines, each empty or starting with `n`
//! spaces, are
//! parsed with those spaces removed and positions mapped back (a position at the start of a
//! part line is the token after the indentation, but for the end of a block scalar, at the
//! line's start). Failing that, the root mapping's entries (from the last entry starting
//! before the change to the first one starting after it). At the start of such a key's line
//! libyaml's scanner is always in the same state (the enclosing block indentations, no flow
//! collection, no pending simple key), so whole entries tokenize alike alone or in the text,
//! `n` columns to the left; an insertion or deletion that repeats the text around it (a line
//! typed before a line with the same indentation) is placed at a line start. Whatever could
//! tie entries together makes it parse in full: aliases and merge keys (in the old parse or
//! the new part), a mapping that is not a block mapping, any parse finding (duplicate keys
//! included), document markers and directives (but a first `---` line), `\r`, a BOM, several
//! documents, a line with less indentation (a comment at column 0), or a part larger than
//! half the text. It starts from the last parse without findings.
//!
//! *Content*: the work that depends only on the CRD's content is reused when the CRD
//! document's tree without its unknown top-level fields is the same (scalars to the bit, keys
//! in order, spans aside: then its v1 JSON is the same to the bit) as the last compile's that
//! had a CRD, under the same Kubernetes version. When the text was parsed in part from that
//! compile's parse, only the entries parsed again are compared: an edit confined to an
//! unknown top-level field or to whitespace and comments costs the parse of the entries it
//! touched and the copy of the rest of the tree. What is reused: the internal CRD, CRD
//! validation's errors and the rule compiler's records, the compiled versions (structural
//! schemas, validators, CEL programs), the cost analyses (`cost_explain::schema_costs`), the
//! version overview and the warnings; none holds a position. Everything positional is
//! computed again from the new tree as `compile` computes it: decode and validation
//! findings, rule positions (`rules_view::place_rules`), cost reports (`place_cost_reports`),
//! printer columns and the typed model. When the decoder drops what changed (an unknown
//! field anywhere, as each keystroke of a new key is until the key is complete; `null` for an
//! absent field), the decoded internal CRD equals the kept one and the content work is
//! reused all the same (`compile::same_decoded`: equal internal CRDs, the same `status`, no
//! `-0.0` on either side, which `==` takes for `0.0`); the v1 JSON and the decode are still
//! paid. Any other schema edit costs a full compile of the content (not of the parse).
//!
//! This file checks `reparse_tracked` against `parse` on 180,000 random edits of texts full
//! of multi-line constructs (nested mappings among them), and `recompile` against `compile`
//! (findings, parse, `analyze_objects` with and without an object) on random edits of 88
//! corpus CRDs, each kind of schema edit in a two-version CRD, and edge cases (aliases
//! across entries, duplicate root keys, documents added and removed, CRLF, BOM, `-0.0`,
//! unknown fields typed inside a schema, with whether the content work was reused).

use std::path::{Path, PathBuf};

use crate::{CompiledCrd, KubernetesVersion, Options};

/// xorshift64*: a fixed-seed PRNG, so every run makes the same edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// Asserts that `incremental` (from `recompile`) is what a fresh compile of `text` gives.
fn assert_same(
    incremental: &CompiledCrd,
    text: &str,
    options: &Options,
    objects: &[String],
    what: &str,
) {
    let fresh = CompiledCrd::compile(text, options);
    let (a, b) = (incremental.parsed(), fresh.parsed());
    assert_eq!(a.documents, b.documents, "parse differs: {what}");
    assert_eq!(a.findings, b.findings, "parse findings differ: {what}");
    assert_eq!(a.lines, b.lines, "line index differs: {what}");
    assert_eq!(
        incremental.findings(),
        fresh.findings(),
        "findings differ: {what}"
    );
    assert_eq!(
        incremental.analyze_objects(&[], None),
        fresh.analyze_objects(&[], None),
        "analysis differs: {what}"
    );
    if !objects.is_empty() {
        assert_eq!(
            incremental.analyze_objects(objects, None),
            fresh.analyze_objects(objects, None),
            "analysis with the object differs: {what}"
        );
    }
}

/// The nearest char boundary at or before `i`.
fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Byte offsets of the starts of lines.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect()
}

/// A position right after one of the occurrences of `needle` (or a random place).
fn after(text: &str, needle: &str, rng: &mut Rng) -> usize {
    let hits: Vec<usize> = text
        .match_indices(needle)
        .map(|(i, _)| i + needle.len())
        .collect();
    if hits.is_empty() {
        boundary(text, rng.below(text.len() + 1))
    } else {
        hits[rng.below(hits.len())]
    }
}

const CHARS: &[&str] = &[
    "a", "Z", "0", " ", ":", "\n", "-", "#", "\"", "'", "{", "é", "\t", "  ",
];

/// One random edit: (description, new text). Each sequence of keystrokes is applied one at a
/// time by the caller.
fn random_edit(text: &str, rng: &mut Rng) -> Vec<(String, String)> {
    let edit = |at: usize, del: usize, ins: &str| {
        let at = boundary(text, at);
        let end = boundary(text, at + del).max(at);
        let mut t = String::with_capacity(text.len() + ins.len());
        t.push_str(&text[..at]);
        t.push_str(ins);
        t.push_str(&text[end..]);
        t
    };
    let starts = line_starts(text);
    let line = |rng: &mut Rng| starts.get(rng.below(starts.len())).copied().unwrap_or(0);
    match rng.below(10) {
        0 => {
            let c = CHARS[rng.below(CHARS.len())];
            let at = rng.below(text.len() + 1);
            vec![(format!("insert {c:?} at {at}"), edit(at, 0, c))]
        }
        1 => {
            let at = rng.below(text.len());
            vec![(format!("delete a char at {at}"), edit(at, 1, ""))]
        }
        2 => {
            let at = rng.below(text.len());
            let c = CHARS[rng.below(CHARS.len())];
            vec![(format!("replace a char at {at} by {c:?}"), edit(at, 1, c))]
        }
        3 => {
            // A blank line or a comment line: the content stays the same, positions move.
            let at = line(rng);
            let ins = if rng.below(2) == 0 { "\n" } else { "# note\n" };
            vec![(format!("insert line {ins:?} at {at}"), edit(at, 0, ins))]
        }
        4 => {
            let at = line(rng);
            let len = text[at..].find('\n').map_or(text.len() - at, |n| n + 1);
            vec![(format!("delete the line at {at}"), edit(at, len, ""))]
        }
        5 => {
            let at = line(rng);
            let len = text[at..].find('\n').map_or(text.len() - at, |n| n + 1);
            let dup = text[at..at + len].to_owned();
            vec![(format!("duplicate the line at {at}"), edit(at, 0, &dup))]
        }
        6 => {
            let at = after(text, "rule: ", rng);
            let ins = [" ", "x", "!", "self.", ")"][rng.below(5)];
            vec![(format!("edit a rule at {at}: {ins:?}"), edit(at, 0, ins))]
        }
        7 => {
            let at = after(text, "description: ", rng);
            vec![(
                format!("edit a description at {at}"),
                edit(at, 0, "Edited "),
            )]
        }
        8 => {
            let at = after(text, "\n", rng);
            vec![(format!("indent the line at {at}"), edit(at, 0, "  "))]
        }
        _ => {
            // Typing an unknown top-level field at the first line, one key at a time.
            // (After a first `---` line, when the text starts with one, half of the time.)
            let field = "zabc: 1\n";
            let at = if text.starts_with("---\n") && rng.below(2) == 0 {
                4
            } else {
                0
            };
            (1..=field.len())
                .map(|n| {
                    let t = format!("{}{}{}", &text[..at], &field[..n], &text[at..]);
                    (format!("type {:?} at the top", &field[..n]), t)
                })
                .collect()
        }
    }
}

/// The CRD files of the corpus, smallest first, and for each the text of one object of its
/// kind, when the corpus has one.
fn corpus() -> Option<Vec<(String, String, Option<String>)>> {
    let dir = corpus_dir();
    let index = std::fs::read_to_string(dir.join("index.json")).ok()?;
    let index: serde_json::Value = serde_json::from_str(&index).ok()?;
    let mut out = Vec::new();
    for crd in index["crds"].as_array()? {
        let Some(file) = crd["file"].as_str() else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
            continue;
        };
        let object = index["objects"].as_array().and_then(|objects| {
            objects.iter().find_map(|o| {
                let matches = o["crds"]
                    .as_array()?
                    .iter()
                    .any(|c| c["group"] == crd["group"] && c["kind"] == crd["kind"]);
                if !matches {
                    return None;
                }
                std::fs::read_to_string(dir.join(o["file"].as_str()?)).ok()
            })
        });
        out.push((file.to_owned(), text, object));
    }
    out.sort_by_key(|(_, t, _)| t.len());
    Some(out)
}

#[test]
fn random_edits_of_corpus_crds_recompile_as_a_fresh_compile() {
    let Some(crds) = corpus() else {
        println!("skipped: {} not found", corpus_dir().display());
        return;
    };
    let options = Options::default();
    // Debug builds are slow: a deterministic sample (every CRD up to a size, fewer edits);
    // release builds (`cargo test --release`) check every CRD.
    let (max_len, edits) = if cfg!(debug_assertions) {
        (400_000, 6)
    } else {
        (usize::MAX, 12)
    };
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut checked = 0;
    let mut keystrokes = 0;
    let mut reused = 0;
    let mut reparsed = 0;
    for (file, original, object) in crds.iter().filter(|(_, t, _)| t.len() <= max_len) {
        let objects: Vec<String> = object.iter().cloned().collect();
        let mut text = original.clone();
        let mut compiled = CompiledCrd::compile(&text, &options);
        for _ in 0..edits {
            for (what, next) in random_edit(&text, &mut rng) {
                let incremental = compiled.recompile(&next, &options);
                reused += usize::from(incremental.content_reused());
                reparsed += usize::from(incremental.reparsed());
                assert_same(
                    &incremental,
                    &next,
                    &options,
                    &objects,
                    &format!("{file}: {what}"),
                );
                compiled = incremental;
                text = next;
                keystrokes += 1;
            }
            // Now and then, back to the original text.
            if rng.below(4) == 0 {
                compiled = compiled.recompile(original, &options);
                assert_same(
                    &compiled,
                    original,
                    &options,
                    &objects,
                    &format!("{file}: back"),
                );
                text = original.clone();
            }
        }
        checked += 1;
    }
    println!(
        "{checked} CRDs, {keystrokes} edits: {reparsed} parsed only the changed entries, {reused} reused the content"
    );
    assert!(checked > 0 && reused > 0 && reparsed > 0);
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.size < 10
              message: too big
            - rule: self.items.all(i, i.size() < 3)
            properties:
              size: {type: integer, minimum: -0.0}
              items: {type: array, items: {type: string}}
";

/// Recompiles through each text in turn, checking each against a fresh compile.
fn chain(texts: &[String]) {
    let options = Options::default();
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 12, items: [abcd]}\n".to_owned();
    let objects = [object];
    let mut compiled = CompiledCrd::compile(&texts[0], &options);
    for (i, t) in texts.iter().enumerate().skip(1) {
        compiled = compiled.recompile(t, &options);
        assert_same(&compiled, t, &options, &objects, &format!("step {i}: {t}"));
    }
}

/// Recompiles through each text in turn, checking each against a fresh compile and whether
/// the previous content work was reused (`reused[i - 1]` for `texts[i]`).
fn chain_reused(texts: &[String], reused: &[bool]) {
    let options = Options::default();
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 12, items: [abcd]}\n".to_owned();
    let objects = [object];
    let mut compiled = CompiledCrd::compile(&texts[0], &options);
    for (i, t) in texts.iter().enumerate().skip(1) {
        compiled = compiled.recompile(t, &options);
        let what = format!("step {i}: {t}");
        assert_same(&compiled, t, &options, &objects, &what);
        assert_eq!(compiled.content_reused(), reused[i - 1], "reuse: {what}");
    }
}

/// Edits the decoder drops (unknown fields inside a schema or a version, `null` for an
/// absent field) reuse the content work, as an unknown top-level field does, and recompile
/// as a fresh compile does; edits of what it reads, `-0.0` and `status` do not reuse it.
#[test]
fn decoded_content_edits_recompile_as_a_fresh_compile() {
    let base = CRD.replace("minimum: -0.0", "minimum: 0");
    let in_schema = |field: &str| {
        base.replace(
            "          spec:\n            type: object\n",
            &format!("          spec:\n            {field}type: object\n"),
        )
    };
    let typed = |name: &str| in_schema(&format!("{name}: 1\n            "));
    // An unknown field typed inside the schema, one key at a time, then removed.
    chain_reused(
        &[
            base.clone(),
            typed("z"),
            typed("za"),
            typed("zab"),
            in_schema("zab: \n            "),
            base.clone(),
        ],
        &[true, true, true, true, true],
    );
    // An unknown field in a version and in the names; `null` for absent fields.
    chain_reused(
        &[
            base.clone(),
            base.replace("    served: true\n", "    served: true\n    zz: [1, 2]\n"),
            base.replace(
                "{kind: Widget, plural: widgets}",
                "{kind: Widget, plural: widgets, x: y}",
            ),
            in_schema("description: null\n            "),
            base.clone(),
        ],
        &[true, true, true, true],
    );
    // What the decoder reads changes: compiled again.
    chain_reused(
        &[
            base.clone(),
            typed("z"),
            typed("z").replace("message: too big", "message: too large"),
            typed("z").replace("type: integer", "type: number"),
            typed("z").replace("self.size < 10", "self.size < 1"),
            typed("z"),
        ],
        &[true, false, false, false, false],
    );
    // `-0.0` beside an unknown field (the content work is reused only where a fresh compile
    // gives the same).
    chain(&[
        base.clone(),
        typed("z").replace("minimum: 0", "minimum: -0.0"),
        typed("zz").replace("minimum: 0", "minimum: -0.0"),
        typed("zz").replace("minimum: 0", "minimum: -1e-400"),
        typed("zz"),
        typed("z"),
    ]);
    // `status` is read from the text by the version overview: any change compiles again.
    let status = format!("{base}status: {{storedVersions: [v1]}}\n");
    chain_reused(
        &[
            status.clone(),
            status.replace("[v1]}", "[v1], x: 1}"),
            status.replace("[v1]}", "[v1]}\n# a comment"),
            base.clone(),
        ],
        &[false, false, false],
    );
}

/// A CRD with two versions, each with its own schema (descriptions, a block scalar, rules,
/// lengths, nested properties) and a top-level field after `spec`.
const TWO_VERSIONS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            description: the widget's spec
            properties:
              name:
                maxLength: 20
                type: string
              size:
                description: |-
                  how big
                  it is
                minimum: 0
                type: integer
              tags:
                items: {type: string, maxLength: 5}
                type: array
            required: [size]
            type: object
            x-kubernetes-validations:
            - rule: self.size < 10
              message: too big
        type: object
    served: true
    storage: true
  - name: v2
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              label:
                maxLength: 30
                type: string
                x-kubernetes-validations:
                - rule: self.startsWith('a')
              size:
                description: how big it is
                type: integer
            type: object
        type: object
    served: true
    storage: false
status:
  storedVersions: [v1]
";

/// Each kind of edit inside a version's schema recompiles as a fresh compile does, parsed in
/// part (inside the nested mapping that holds it), with the content work reused exactly when
/// the decoded CRD is the same; from the base text, then chained one after another.
#[test]
fn schema_edits_recompile_as_a_fresh_compile() {
    let base = TWO_VERSIONS.to_owned();
    let edit = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        base.replacen(from, to, 1)
    };
    // (what, new text, content reused)
    let cases: Vec<(&str, String, bool)> = vec![
        (
            "a description deep in v1",
            edit("description: the widget's spec", "description: the widgets spec"),
            false,
        ),
        (
            "a block scalar description",
            edit("                  it is\n", "                  it was\n"),
            false,
        ),
        ("a maxLength in v1", edit("maxLength: 20", "maxLength: 21"), false),
        ("a maxLength in v2", edit("maxLength: 30", "maxLength: 3"), false),
        (
            "a maxLength in a flow mapping",
            edit("maxLength: 5}", "maxLength: 6}"),
            false,
        ),
        (
            "a rule in v2",
            edit("self.startsWith('a')", "self.startsWith('b')"),
            false,
        ),
        (
            "a broken rule in v1",
            edit("self.size < 10", "self.size <"),
            false,
        ),
        (
            "a message in v1",
            edit("message: too big", "message: too large"),
            false,
        ),
        (
            "an unknown field in v2's schema",
            edit(
                "                maxLength: 30\n",
                "                maxLength: 30\n                zz: 1\n",
            ),
            true,
        ),
        (
            "a comment inside a schema",
            edit("              name:\n", "              # the name\n              name:\n"),
            true,
        ),
        (
            "spaces after a value",
            edit("minimum: 0\n", "minimum:   0\n"),
            true,
        ),
        (
            "a property added before another",
            edit(
                "              name:\n",
                "              color: {type: string}\n              name:\n",
            ),
            false,
        ),
        (
            "a property removed",
            edit(
                "              name:\n                maxLength: 20\n                type: string\n",
                "",
            ),
            false,
        ),
        (
            "a required list item",
            edit("required: [size]", "required: [size, name]"),
            false,
        ),
        ("a version's name", edit("- name: v2", "- name: v3"), false),
        (
            "served in v2",
            edit(
                "    served: true\n    storage: false",
                "    served: false\n    storage: false",
            ),
            false,
        ),
        (
            "the status",
            edit("storedVersions: [v1]", "storedVersions: [v1, v2]"),
            false,
        ),
        (
            "an indentation error inside a schema",
            edit("                type: string\n", "               type: string\n"),
            false,
        ),
    ];
    let options = Options::default();
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 12, name: abc, tags: [abcdefg]}\n".to_owned();
    let objects = [object];
    let compiled = CompiledCrd::compile(&base, &options);
    let mut reparsed = 0;
    for (what, text, reused) in &cases {
        let again = compiled.recompile(text, &options);
        assert_same(&again, text, &options, &objects, what);
        let fresh_ok = again.parsed().findings.is_empty();
        if fresh_ok {
            assert_eq!(again.content_reused(), *reused, "reuse: {what}");
        }
        reparsed += usize::from(again.reparsed());
        if !again.reparsed() {
            println!("parsed in full: {what}");
        }
        // Back to the base text.
        let back = again.recompile(&base, &options);
        assert_same(
            &back,
            &base,
            &options,
            &objects,
            &format!("back from {what}"),
        );
    }
    assert!(reparsed >= cases.len() - 2, "{reparsed} parsed in part");
    // One after another.
    let mut texts = vec![base.clone()];
    texts.extend(cases.iter().map(|(_, t, _)| t.clone()));
    chain(&texts);
}

#[test]
fn edge_cases_recompile_as_a_fresh_compile() {
    let base = CRD.to_owned();
    // An unknown top-level field, typed and removed.
    chain(&[
        base.clone(),
        format!("z: 1\n{base}"),
        format!("zz: 1\n{base}"),
        base.clone(),
    ]);
    // Aliases across top-level entries: the schema's content comes from an anchor elsewhere.
    let anchored = base.replace("    served: true\n", "    served: &s true\n");
    chain(&[
        anchored.clone(),
        format!("{anchored}x: *s\n"),
        anchored.replace("storage: true", "storage: *s"),
        anchored
            .replace("&s true", "&s false")
            .replace("storage: true", "storage: *s"),
    ]);
    // Duplicate keys at the root (the last one wins in the content, the finding moves).
    chain(&[
        base.clone(),
        format!("{base}kind: CustomResourceDefinition\n"),
        format!("kind: CustomResourceDefinition\n{base}"),
        format!("{base}spec: {{}}\n"),
        base.clone(),
    ]);
    // Edits that change the document count.
    chain(&[
        base.clone(),
        format!("{base}---\n{base}"),
        format!("---\n{base}"),
        format!("{{}}\n---\n{base}"),
        format!("{base}---\n"),
        base.clone(),
    ]);
    // CRLF line ends, a BOM.
    let crlf = base.replace('\n', "\r\n");
    chain(&[
        base.clone(),
        crlf.clone(),
        format!("\r\n{crlf}"),
        format!("\u{feff}{base}"),
        base.clone(),
    ]);
    // -0.0 and 0.0 are the same number to `==` but not to the server's messages.
    chain(&[
        base.clone(),
        base.replace("minimum: -0.0", "minimum: 0.0"),
        base.replace("minimum: -0.0", "minimum: 0"),
        base.clone(),
    ]);
    // Positions move inside the schema while the content stays the same.
    chain(&[
        base.clone(),
        base.replace(
            "            x-kubernetes-validations:\n",
            "\n            x-kubernetes-validations:\n",
        ),
        base.replace("- rule: self.size < 10", "- rule:   self.size < 10"),
        base.replace("- rule: self.size < 10", "- rule: \"self.size < 10\""),
        base.replace("too big", "too  big"),
        base.clone(),
    ]);
    // Kubernetes version and field validation change between compiles.
    let options = Options::default();
    let compiled = CompiledCrd::compile(&format!("z: 1\n{base}"), &options);
    for o in [
        Options {
            kubernetes_version: KubernetesVersion::new(30),
            ..Options::default()
        },
        Options {
            field_validation: crate::FieldValidation::Warn,
            ..Options::default()
        },
    ] {
        let text = format!("zz: 1\n{base}");
        let again = compiled.recompile(&text, &o);
        assert_same(&again, &text, &o, &[], &format!("{o:?}"));
    }
    // Not a CRD, then a CRD again.
    chain(&[
        base.clone(),
        "a: b\n".to_owned(),
        "".to_owned(),
        base.clone(),
    ]);
}

/// `document::reparse_tracked` gives what `document::parse` gives, or nothing, after many random
/// edits of texts full of constructs that span lines (block scalars with every chomping, flow
/// collections and quoted scalars over several lines, plain continuations, comments at column
/// 0, complex keys) and of the syntax that ties entries together (anchors, aliases, merge
/// keys, document markers, directives, tabs, CRLF).
#[test]
fn reparse_equals_a_full_parse() {
    use crate::documents::document::{parse, reparse_tracked};
    use crate::SourceId;
    let texts = [
        "# head\na: 1\nb: |+\n  keep\n\nc: \"multi\n  line\"\nd: [1,\n  2]\ne:\n  - x\n  - yy\ng: plain\n  continued\n'h': {k: v}\n? i\n: j\nk: >-\n  folded\n\n# tail\n",
        "{\na: 1,\nb: 2,\nc: [3,\n4],\nd: 5\n}\n",
        "a:\n- x\n- z\nb: \"q\n  r\"\nc: 'it''s'\nd: |2\n   indented\ne: 1\n",
        "a: &x {p: 1}\nb: *x\nc:\n  <<: *x\n  q: 2\nd: |\n  text\n",
        "---\napiVersion: v1\nkind: K\nmetadata:\n  name: nm\nspec:\n  s: |-\n    one\n  t: [a,\n    b]\n",
        "apiVersion: v1\nkind: K\nmetadata:\n  name: nm\nspec:\n  s: |-\n    one\n    two\n  t: 'q'\nstatus: {}\n",
        // Nested block mappings (parsed in part inside the deepest one holding the edit).
        "spec:\n  versions:\n  - name: v1\n    schema:\n      props:\n        a:\n          type: string\n          description: |\n            text\n\n            more\n        b: {type: int,\n          max: 3}\n        c:\n          d: \"x\n            y\"\n          # note\n          e: plain\n            more\n        f:\n        - 1\n        -   g: 2\n            h: 3\n        i: >2\n            folded\n        j: 1\n    served: true\n  - name: v2\n    k: |+\n      keep\n\n    l: 1\nz: 1\n",
        "a:\n  b:\n    c:\n      d: 1\n      e:\n        f: 2\n# col0\n        g: 3\n      h: 4\n    i: 5\n  j: 6\nk: 7\n",
        "s:\n  p:\n    a: |-\n      x\n    # c\n    b: >\n      y\n\n    c:\n      d: |\n        z\n      e:\n        - |\n          w\n        - f: [1,\n            2]\n          g: \"h\n            i\"\n    j: k\n  l: m\n",
    ];
    let pieces = [
        "\n",
        " ",
        "  ",
        ":",
        ": ",
        "-",
        "- ",
        "|",
        "|+",
        ">-",
        "#",
        "'",
        "\"",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&a",
        "*a",
        "<<: ",
        "---\n",
        "...\n",
        "%YAML 1.1\n",
        "\t",
        "? ",
        "x",
        "zabc: 1\n",
        "\r\n",
        "\u{feff}",
        "é",
    ];
    let mut reparsed = 0;
    let mut nested = 0;
    let mut steps = 0;
    for seed in [0xdead_beef_0bad_cafe, 0x1111, 0x2222_3333, 0x4444_5555_6666] {
        let mut rng = Rng(seed);
        for base in texts {
            for _ in 0..200 {
                let mut text = base.to_owned();
                let mut parsed = parse(&text, SourceId::Crd);
                for _ in 0..25 {
                    let at = boundary(&text, rng.below(text.len() + 1));
                    let next = match rng.below(3) {
                        0 => {
                            let end = boundary(&text, at + rng.below(4)).max(at);
                            format!("{}{}", &text[..at], &text[end..])
                        }
                        1 => {
                            // At a line start, more often than chance.
                            let at = if rng.below(2) == 0 {
                                let starts = line_starts(&text);
                                starts.get(rng.below(starts.len())).copied().unwrap_or(0)
                            } else {
                                at
                            };
                            let p = pieces[rng.below(pieces.len())];
                            format!("{}{p}{}", &text[..at], &text[at..])
                        }
                        _ => {
                            let end = boundary(&text, at + 1).max(at);
                            let p = pieces[rng.below(pieces.len())];
                            format!("{}{p}{}", &text[..at], &text[end..])
                        }
                    };
                    let full = parse(&next, SourceId::Crd);
                    if let Some(r) = reparse_tracked(&parsed, &text, &next, SourceId::Crd) {
                        nested += usize::from(!r.change.path.is_empty());
                        let r = r.parsed;
                        let what = format!("{text:?} → {next:?}");
                        assert_eq!(r.documents, full.documents, "{what}");
                        assert_eq!(r.findings, full.findings, "{what}");
                        assert_eq!(r.lines, full.lines, "{what}");
                        reparsed += 1;
                        parsed = r;
                    } else {
                        parsed = full;
                    }
                    text = next;
                    steps += 1;
                    // Back to the base text now and then, so that most edits start from a text
                    // that parses.
                    if !parsed.findings.is_empty() && rng.below(2) == 0 {
                        text = base.to_owned();
                        parsed = parse(&text, SourceId::Crd);
                    }
                }
            }
        }
    }
    println!("{steps} edits, {reparsed} re-parsed in part, {nested} inside a nested mapping");
    assert!(reparsed > 0 && nested > 0);
}

/// Every corpus CRD, after an edit of a description and of a `maxLength` in the middle of its
/// text (the first from the middle on) and an unknown field typed there, recompiles as a fresh
/// compile does. Slow in a debug build: `cargo test -p crd-studio-engine --lib
/// corpus_schema_edits -- --ignored`.
#[test]
#[ignore]
fn corpus_schema_edits_recompile_as_a_fresh_compile() {
    let Some(crds) = corpus() else {
        println!("skipped: {} not found", corpus_dir().display());
        return;
    };
    let options = Options::default();
    let (mut edits, mut reparsed, mut reused) = (0, 0, 0);
    for (file, text, object) in &crds {
        let objects: Vec<String> = object.iter().cloned().collect();
        let compiled = CompiledCrd::compile(text, &options);
        let middle = boundary(text, text.len() / 2);
        let after_middle = |needle: &str| text[middle..].find(needle).map(|i| middle + i);
        let mut texts = Vec::new();
        if let Some(at) = after_middle("description: ") {
            let at = at + "description: ".len();
            texts.push(format!("{}X{}", &text[..at], &text[at..]));
        }
        if let Some(at) = after_middle("maxLength: ") {
            let at = at + "maxLength: ".len();
            texts.push(format!("{}1{}", &text[..at], &text[at..]));
        }
        if let Some(at) = after_middle("\n") {
            let line = &text[at + 1..];
            let indent = line.len() - line.trim_start_matches(' ').len();
            texts.push(format!(
                "{}\n{}zz: 1{}",
                &text[..at],
                " ".repeat(indent),
                &text[at..]
            ));
        }
        for next in texts {
            let again = compiled.recompile(&next, &options);
            reparsed += usize::from(again.reparsed());
            reused += usize::from(again.content_reused());
            assert_same(&again, &next, &options, &objects, file);
            edits += 1;
        }
    }
    println!(
        "{} CRDs, {edits} edits: {reparsed} parsed in part, {reused} reused the content",
        crds.len()
    );
}

/// An edit inside one version's schema compiles that version's rules again and keeps the
/// other version's compiled rules and validator (the same values, not copies), the defaults'
/// CEL checks included; each result is a fresh compile's.
#[test]
fn an_edit_in_one_version_keeps_the_other_versions_rules() {
    let base = TWO_VERSIONS.replace(
        "                maxLength: 30\n",
        "                maxLength: 30\n                default: abc\n",
    );
    let options = Options::default();
    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 12, name: abc}\n".to_owned();
    let objects = [object];
    let compiled = CompiledCrd::compile(&base, &options);
    let same = |a: &CompiledCrd, b: &CompiledCrd, i: usize| {
        let (a, b) = (&a.compiled_versions()[i], &b.compiled_versions()[i]);
        a.cel
            .as_ref()
            .zip(b.cel.as_ref())
            .is_some_and(|(a, b)| std::rc::Rc::ptr_eq(a, b))
    };
    // (what, new text, whether v1's and v2's rules are kept)
    let cases = [
        (
            "a maxLength in v1",
            base.replace("maxLength: 20", "maxLength: 21"),
            [false, true],
        ),
        (
            "a rule in v1",
            base.replace("self.size < 10", "self.size < 11"),
            [false, true],
        ),
        (
            "a rule in v2",
            base.replace("startsWith('a')", "startsWith('b')"),
            [true, false],
        ),
        (
            "a default in v2",
            base.replace("default: abc", "default: bcd"),
            [true, false],
        ),
        (
            "a version's name",
            base.replace("- name: v2", "- name: v3"),
            [true, true],
        ),
    ];
    for (what, text, kept) in &cases {
        let again = compiled.recompile(text, &options);
        assert_same(&again, text, &options, &objects, what);
        assert!(!again.content_reused(), "{what}");
        assert_eq!(
            [same(&compiled, &again, 0), same(&compiled, &again, 1)],
            *kept,
            "{what}"
        );
        // And back: the kept rules were the base text's.
        let back = again.recompile(&base, &options);
        assert_same(
            &back,
            &base,
            &options,
            &objects,
            &format!("back from {what}"),
        );
    }
    // Versions with the same schema (the internal CRD holds it once, in `spec.validation`):
    // an edit in one keeps the other's rules, now at the version's own place.
    let schema = "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            x-kubernetes-validations:\n            - rule: self.size < 10\n            properties:\n              size: {type: integer, default: 3}\n              name: {type: string, maxLength: 20}\n";
    let shared = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {{kind: Widget, plural: widgets}}\n  scope: Namespaced\n  versions:\n  - name: v1\n{schema}    served: true\n    storage: true\n  - name: v2\n{schema}    served: true\n    storage: false\n"
    );
    let at = shared.rfind("maxLength: 20").unwrap_or_default();
    let split = format!("{}maxLength: 21{}", &shared[..at], &shared[at + 13..]);
    let first = CompiledCrd::compile(&shared, &options);
    for (what, text, kept) in [
        ("v2 edited", &split, [true, false]),
        ("the same again", &shared, [true, false]),
    ] {
        let from = if what == "v2 edited" {
            &first
        } else {
            &CompiledCrd::compile(&split, &options)
        };
        let again = from.recompile(text, &options);
        assert_same(&again, text, &options, &objects, what);
        assert_eq!(
            [same(from, &again, 0), same(from, &again, 1)],
            kept,
            "{what}"
        );
    }
    // A rejected default is found again when its version is kept.
    let rejected = base.replace("default: abc", "default: xyz");
    let first = CompiledCrd::compile(&rejected, &options);
    assert!(
        first.findings().iter().any(|f| f.code == "crd.invalid"),
        "the default breaks its rule"
    );
    let again = first.recompile(
        &rejected.replace("maxLength: 20", "maxLength: 21"),
        &options,
    );
    assert_same(
        &again,
        &rejected.replace("maxLength: 20", "maxLength: 21"),
        &options,
        &objects,
        "kept rejection",
    );
}
