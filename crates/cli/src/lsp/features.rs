//! Completion, hover, code actions and go to definition: each the engine's answer
//! (`CompiledCrd::complete_utf16`, `hover_utf16`, the findings' fixes, `definition`) in the
//! protocol's shapes.

use std::collections::HashMap;
use std::path::Path;

use crd_studio_engine::{CompiledCrd, DocumentHeader, Editor, SourceId, SymbolKind};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeLens, Command, CompletionItemKind,
    CompletionResponse, CompletionTextEdit, CreateFile, DocumentChangeOperation, DocumentChanges,
    DocumentSymbol, Documentation, GotoDefinitionResponse, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, OneOf, OptionalVersionedTextDocumentIdentifier, Position, Range,
    ResourceOp, TextDocumentEdit, TextEdit, Url, WorkspaceEdit,
};

use super::diagnostics::{url, Compiled, Shown};
use super::index::{is_crd, CrdRef, Index};
use super::position::{byte_at, position_of_utf16, range, utf16_at};
use super::settings::Settings;
use super::test_files::{test_crd, TestCrds};

/// The editor a position is in, and the CRD that answers there.
fn target(index: &Index, path: &Path, offset: usize) -> Option<(Editor, CrdRef)> {
    let file = index.files.get(path)?;
    let inside = |h: &&DocumentHeader| h.span.start.offset <= offset && offset <= h.span.end.offset;
    let h = file
        .headers
        .iter()
        .find(inside)
        .or_else(|| file.last_headers.iter().find(inside))
        .or_else(|| {
            file.last_headers
                .iter()
                .rfind(|h| h.span.start.offset <= offset)
        })?;
    if is_crd(h) {
        return Some((Editor::Crd, (path.to_owned(), h.index)));
    }
    let key = (h.group()?.to_owned(), h.kind.clone()?);
    let crd = index.crds.get(&key)?.first()?.clone();
    Some((Editor::Object, crd))
}

fn with_crd<T>(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
    pos: Position,
    f: impl FnOnce(&CompiledCrd, Editor, &str, usize, &CrdRef) -> Option<T>,
) -> Option<T> {
    let file = index.files.get(path)?;
    let (editor, crd) = target(index, path, byte_at(&file.text, pos))?;
    let c = compiled.get(index, settings, &crd)?;
    f(c, editor, &file.text, utf16_at(&file.text, pos), &crd)
}

/// Completion at `pos`.
pub(crate) fn completion(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
    pos: Position,
) -> Option<CompletionResponse> {
    with_crd(
        index,
        settings,
        compiled,
        path,
        pos,
        |c, editor, text, u, _| {
            let done = c.complete_utf16(editor, text, u)?;
            Some(completion_response(text, done))
        },
    )
}

/// The engine's completions (UTF-16 offsets of `text`) in the protocol's shape.
fn completion_response(text: &str, done: crd_studio_engine::Completions) -> CompletionResponse {
    let r = Range {
        start: position_of_utf16(text, done.from),
        end: position_of_utf16(text, done.to),
    };
    let comma = done.comma_at.map(|at| {
        let p = position_of_utf16(text, at);
        vec![TextEdit {
            range: Range { start: p, end: p },
            new_text: ",".into(),
        }]
    });
    let items = done
        .items
        .into_iter()
        .enumerate()
        .map(|(i, item)| lsp_types::CompletionItem {
            kind: Some(match item.kind.as_str() {
                "property" => CompletionItemKind::PROPERTY,
                "keyword" => CompletionItemKind::KEYWORD,
                "enum" => CompletionItemKind::ENUM_MEMBER,
                "constant" => CompletionItemKind::CONSTANT,
                "function" => CompletionItemKind::FUNCTION,
                "method" => CompletionItemKind::METHOD,
                "variable" => CompletionItemKind::VARIABLE,
                "type" => CompletionItemKind::CLASS,
                _ => CompletionItemKind::TEXT,
            }),
            detail: (!item.detail.is_empty()).then(|| item.detail.clone()),
            documentation: (!item.info.is_empty())
                .then(|| Documentation::String(item.info.clone())),
            filter_text: Some(
                item.filter_text
                    .clone()
                    .unwrap_or_else(|| item.label.clone()),
            ),
            sort_text: Some(format!("{i:05}")),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range: r,
                new_text: item.apply.clone().unwrap_or_else(|| item.label.clone()),
            })),
            additional_text_edits: comma.clone(),
            label: item.label,
            ..lsp_types::CompletionItem::default()
        })
        .collect();
    CompletionResponse::Array(items)
}

/// Completion at `pos` of a test file: the format's keys and values, the CRD's fields in an
/// inline object (the engine's `crd_test_complete_utf16`).
pub(crate) fn test_completion(
    index: &Index,
    settings: &Settings,
    crds: &mut TestCrds,
    path: &Path,
    pos: Position,
) -> Option<CompletionResponse> {
    let crd = test_crd(index, settings, crds, path);
    let text = &index.files.get(path)?.text;
    let done =
        crd_studio_engine::crd_test_complete_utf16(text, utf16_at(text, pos), crd.as_deref())?;
    Some(completion_response(text, done))
}

/// Hover at `pos` of a test file.
pub(crate) fn test_hover(
    index: &Index,
    settings: &Settings,
    crds: &mut TestCrds,
    path: &Path,
    pos: Position,
) -> Option<Hover> {
    let crd = test_crd(index, settings, crds, path);
    let text = &index.files.get(path)?.text;
    let h = crd_studio_engine::crd_test_hover_utf16(text, utf16_at(text, pos), crd.as_deref())?;
    Some(hover_response(text, h))
}

/// The engine's hover (UTF-16 offsets of `text`) in the protocol's shape.
fn hover_response(text: &str, h: crd_studio_engine::Hover) -> Hover {
    let mut value = format!("**{}**", h.title);
    for l in &h.lines {
        value.push_str("\n\n");
        value.push_str(l);
    }
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(Range {
            start: position_of_utf16(text, h.from),
            end: position_of_utf16(text, h.to),
        }),
    }
}

/// Hover at `pos`.
pub(crate) fn hover(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
    pos: Position,
) -> Option<Hover> {
    with_crd(
        index,
        settings,
        compiled,
        path,
        pos,
        |c, editor, text, u, _| {
            let h = c.hover_utf16(editor, text, u)?;
            Some(hover_response(text, h))
        },
    )
}

/// Go to definition at `pos`: an object's field → its schema node, `kind` → the CRD.
pub(crate) fn definition(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
    pos: Position,
) -> Option<GotoDefinitionResponse> {
    let file = index.files.get(path)?;
    let offset = byte_at(&file.text, pos);
    let (editor, crd) = target(index, path, offset)?;
    if editor != Editor::Object {
        return None;
    }
    let c = compiled.get(index, settings, &crd)?;
    let span = c.definition(&file.text, offset)?;
    Some(GotoDefinitionResponse::Scalar(Location {
        uri: url(&crd.0),
        range: range(&span),
    }))
}

/// The studio's fixes of the findings shown in `uri` whose range meets `r`, as quick fixes.
pub(crate) fn code_actions(
    uri: &Url,
    path: &Path,
    shown: &[Shown],
    r: Range,
) -> Vec<CodeActionOrCommand> {
    let meets = |a: &Range| !(a.end < r.start || r.end < a.start);
    let mut out = Vec::new();
    for s in shown {
        let Some(loc) = s.finding.location else {
            continue;
        };
        let here = range(&loc.span);
        if !meets(&here) {
            continue;
        }
        for fix in &s.finding.fixes {
            let target = match fix.source {
                Some(SourceId::Crd) if loc.source != SourceId::Crd => match &s.crd_file {
                    Some(p) => url(p),
                    None => continue,
                },
                _ => uri.clone(),
            };
            let edits = fix
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: range(&e.span),
                    new_text: e.new_text.clone(),
                })
                .collect();
            let _ = path;
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(target, edits)])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(s.finding.fixes.len() == 1),
                ..CodeAction::default()
            }));
        }
    }
    out
}

/// For each finding shown in `uri` whose range meets `r` and names a CEL function the selected
/// Kubernetes version lacks (issue 30's version note): an action that sets `kubernetesVersion`
/// in the workspace's `.crd-studio.yaml` to the oldest version that has it (creating the file
/// when there is none). The client's own `kubernetesVersion` setting, if any, still wins.
pub(crate) fn version_actions(
    root: Option<&Path>,
    shown: &[Shown],
    r: Range,
) -> Vec<CodeActionOrCommand> {
    let Some(root) = root else {
        return Vec::new();
    };
    let meets = |a: &Range| !(a.end < r.start || r.end < a.start);
    let file = root.join(".crd-studio.yaml");
    let file_uri = url(&file);
    let existing = std::fs::read_to_string(&file).ok();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for s in shown {
        let (Some(loc), Some(note)) = (s.finding.location, &s.finding.newer_version) else {
            continue;
        };
        if !meets(&range(&loc.span)) || seen.contains(&note.available_from) {
            continue;
        }
        seen.push(note.available_from);
        let line = format!("kubernetesVersion: \"{}\"", note.available_from);
        let edit = match &existing {
            Some(text) => {
                // Our settings file: its top-level `kubernetesVersion:` line is replaced,
                // else the line goes first.
                let edit = text
                    .lines()
                    .enumerate()
                    .find(|(_, l)| l.starts_with("kubernetesVersion:"))
                    .map(|(i, l)| {
                        let i = u32::try_from(i).unwrap_or(u32::MAX);
                        let end = u32::try_from(l.encode_utf16().count()).unwrap_or(u32::MAX);
                        TextEdit {
                            range: Range {
                                start: Position::new(i, 0),
                                end: Position::new(i, end),
                            },
                            new_text: line.clone(),
                        }
                    })
                    .unwrap_or_else(|| TextEdit {
                        range: Range::default(),
                        new_text: format!("{line}\n"),
                    });
                WorkspaceEdit {
                    changes: Some(HashMap::from([(file_uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }
            }
            None => WorkspaceEdit {
                document_changes: Some(DocumentChanges::Operations(vec![
                    DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                        uri: file_uri.clone(),
                        options: None,
                        annotation_id: None,
                    })),
                    DocumentChangeOperation::Edit(TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier {
                            uri: file_uri.clone(),
                            version: None,
                        },
                        edits: vec![OneOf::Left(TextEdit {
                            range: Range::default(),
                            new_text: format!("{line}\n"),
                        })],
                    }),
                ])),
                ..WorkspaceEdit::default()
            },
        };
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!(
                "Select Kubernetes {} in .crd-studio.yaml ({})",
                note.available_from, note.text
            ),
            kind: Some(CodeActionKind::QUICKFIX),
            edit: Some(edit),
            ..CodeAction::default()
        }));
    }
    out
}

/// A code lens on each CEL rule of the CRDs of `path`: its estimated cost × cardinality
/// against the per-expression limit (the engine's cost report).
pub(crate) fn code_lenses(
    index: &Index,
    settings: &Settings,
    compiled: &mut Compiled,
    path: &Path,
) -> Vec<CodeLens> {
    let Some(file) = index.files.get(path) else {
        return Vec::new();
    };
    let crds: Vec<CrdRef> = file
        .headers
        .iter()
        .filter(|h| is_crd(h))
        .map(|h| (path.to_owned(), h.index))
        .collect();
    let mut out = Vec::new();
    for crd in crds {
        let Some(c) = compiled.get(index, settings, &crd) else {
            continue;
        };
        for v in c.analyze_objects(&[], None).versions {
            let Some(cost) = v.cost else { continue };
            for e in cost.expressions {
                let Some(line) = e.line else { continue };
                let at = Position {
                    line: u32::try_from(line.saturating_sub(1)).unwrap_or(u32::MAX),
                    character: 0,
                };
                let title = format!(
                    "{}{}: cost {} × {} = {} of {} ({:.2}%)",
                    if e.over_limit { "over the limit: " } else { "" },
                    v.name,
                    grouped(e.max_cost),
                    grouped(e.multiplier),
                    grouped(e.estimated_cost),
                    grouped(e.limit),
                    e.share * 100.0
                );
                out.push(CodeLens {
                    range: Range { start: at, end: at },
                    command: Some(Command {
                        title,
                        command: String::new(),
                        arguments: None,
                    }),
                    data: None,
                });
            }
        }
    }
    out
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The outline of `path`: per document, a CRD's versions, schema tree and rules, or an
/// object's fields (the engine's `document_symbols`).
pub(crate) fn document_symbols(index: &Index, path: &Path) -> Vec<DocumentSymbol> {
    fn convert(s: crd_studio_engine::Symbol) -> DocumentSymbol {
        #[allow(deprecated)]
        DocumentSymbol {
            name: if s.name.is_empty() {
                "?".into()
            } else {
                s.name
            },
            detail: (!s.detail.is_empty()).then_some(s.detail),
            kind: match s.kind {
                SymbolKind::Document => lsp_types::SymbolKind::MODULE,
                SymbolKind::Version => lsp_types::SymbolKind::NAMESPACE,
                SymbolKind::Field => lsp_types::SymbolKind::FIELD,
                SymbolKind::Rule => lsp_types::SymbolKind::FUNCTION,
            },
            tags: None,
            deprecated: None,
            range: range(&s.span),
            selection_range: range(&s.selection),
            children: Some(s.children.into_iter().map(convert).collect()),
        }
    }
    index
        .files
        .get(path)
        .map(|f| {
            crd_studio_engine::document_symbols(&f.text)
                .into_iter()
                .map(convert)
                .collect()
        })
        .unwrap_or_default()
}
