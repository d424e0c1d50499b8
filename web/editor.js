// The code editors of CRD Studio: CodeMirror 6 behind a small global API, `window.CrdEditor`,
// which the Rust app binds with wasm-bindgen (src/editor.rs). Positions cross the boundary as
// 1-based lines and 1-based UTF-16 columns, which is what the engine reports (`utf16Column`)
// and what JavaScript strings count.
//
//   const h = CrdEditor.create(parent, { doc, label, onChange, readOnly })
//     // onChange(doc, keepStart, keepEnd) on user edits: CodeMirror's document (its
//     // sliceString copies a part without the rest; toString joins the whole text, which a
//     // keystroke in a big CRD should not pay) and what stayed of the last one (or -1)
//   CrdEditor.setDiagnostics(h, [{ fromLine, fromCol, toLine, toCol, severity, message, source }])
//   CrdEditor.focusAt(h, line, utf16Col)
//   CrdEditor.setDoc(h, text)       // replaces the text without calling onChange
//   CrdEditor.getDoc(h) -> text
//   CrdEditor.applyEdits(h, [{ fromLine, fromCol, toLine, toCol, text }])  // a user edit (onChange, undo)
//   CrdEditor.destroy(h)
//
// With `options.assist(kind, doc, utf16Offset, resolve)` ('complete' or 'hover'; resolve
// gets the worker's JSON answer or null) the editor offers completion (while typing and
// Ctrl+Space) and hover documentation; a diagnostic's `fixes` become buttons in its tooltip.

import { EditorState, Annotation, Prec } from '@codemirror/state';
import {
  Decoration,
  EditorView,
  ViewPlugin,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import {
  syntaxHighlighting,
  HighlightStyle,
  indentOnInput,
  bracketMatching,
  indentUnit,
} from '@codemirror/language';
import { setDiagnostics as cmSetDiagnostics, forEachDiagnostic, lintGutter } from '@codemirror/lint';
import {
  autocompletion,
  completionKeymap,
  completionStatus,
  closeCompletion,
  pickedCompletion,
  selectedCompletion,
} from '@codemirror/autocomplete';
import { hoverTooltip } from '@codemirror/view';
import { yaml } from '@codemirror/lang-yaml';
import { tags } from '@lezer/highlight';

// Marks transactions that come from the app (setDoc), so they are not echoed to onChange.
const external = Annotation.define();

// Every colour is a CSS custom property of static/style.css (light and dark through
// light-dark()), so the editors follow the page's theme, or an embed's, with no JavaScript.
const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '13px', color: 'var(--text)', backgroundColor: 'var(--panel)' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    lineHeight: '1.45',
  },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-gutters': {
    backgroundColor: 'var(--cm-gutter-bg)',
    borderRight: '1px solid var(--border)',
    color: 'var(--cm-gutter-text)',
  },
  '.cm-activeLine': { backgroundColor: 'var(--cm-active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--cm-active-gutter)', color: 'var(--text)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--cm-match)', outline: 'none' },
  '.cm-specialChar': { color: 'var(--error)' },
  // A visible focus ring: keyboard users see which editor has the focus.
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-2px' },
  // Diagnostics: a wavy underline in the severity's colour (the lint package draws an SVG of
  // a fixed colour, which a dark background swallows), and its tooltip in the page's colours.
  '.cm-lintRange': { backgroundImage: 'none', paddingBottom: '0' },
  '.cm-lintRange-error, .cm-lintRange-warning, .cm-lintRange-info, .cm-lintRange-hint': {
    textDecorationLine: 'underline',
    textDecorationStyle: 'wavy',
    textDecorationSkipInk: 'none',
    textDecorationThickness: '1px',
    textUnderlineOffset: '3px',
  },
  '.cm-lintRange-error': { textDecorationColor: 'var(--error)' },
  '.cm-lintRange-warning': { textDecorationColor: 'var(--warning)' },
  '.cm-lintRange-info, .cm-lintRange-hint': { textDecorationColor: 'var(--info)' },
  '.cm-tooltip': {
    backgroundColor: 'var(--panel)',
    color: 'var(--text)',
    border: '1px solid var(--border)',
  },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': {
    backgroundColor: 'var(--focus)',
    color: 'var(--panel)',
  },
  '.cm-completionDetail': { opacity: '0.8', marginLeft: '0.8em', fontStyle: 'normal' },
  '.cm-completionInfo': { maxWidth: '22em', whiteSpace: 'pre-wrap' },
  // A comment line wraps at the editor's edge (the examples explain themselves in comments);
  // YAML lines keep their one-line shape.
  // (inline-size containment: the line takes the editor's width instead of widening it.)
  '.cm-line.cm-comment-line': { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', contain: 'inline-size' },
  '.cm-hover-doc': { padding: '4px 8px', maxWidth: 'min(36em, 90vw)', fontSize: '12px' },
  '.cm-hover-doc code': { fontWeight: 'bold', whiteSpace: 'pre-wrap', wordBreak: 'break-word' },
  '.cm-hover-doc p': { margin: '4px 0 0', whiteSpace: 'pre-wrap' },
  '.cm-diagnosticAction': {
    backgroundColor: 'var(--panel)',
    color: 'var(--text)',
    border: '1px solid var(--border)',
    borderRadius: '3px',
  },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--error)' },
  '.cm-diagnostic-warning': { borderLeftColor: 'var(--warning)' },
  '.cm-diagnostic-info, .cm-diagnostic-hint': { borderLeftColor: 'var(--info)' },
});

// YAML colours, from the same custom properties.
const highlight = HighlightStyle.define([
  { tag: tags.definition(tags.propertyName), color: 'var(--syn-key)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--syn-string)' },
  { tag: [tags.atom, tags.bool, tags.number, tags.null, tags.labelName, tags.typeName], color: 'var(--syn-atom)' },
  { tag: tags.comment, color: 'var(--syn-comment)', fontStyle: 'italic' },
  { tag: [tags.meta, tags.keyword, tags.attributeValue], color: 'var(--syn-meta)' },
  { tag: tags.invalid, color: 'var(--error)' },
]);

/** Offset in `doc` of 1-based `line` and 1-based UTF-16 `col`, clamped to the text. */
function offsetOf(doc, line, col) {
  const n = Math.min(Math.max(1, line | 0), doc.lines);
  const l = doc.line(n);
  const c = Math.min(Math.max(1, col | 0), l.length + 1);
  return l.from + c - 1;
}

// Edits in 1-based line / UTF-16 column coordinates → CodeMirror changes.
function changesOf(doc, edits) {
  return (edits ?? []).map((e) => {
    const from = offsetOf(doc, e.fromLine, e.fromCol);
    const to = Math.max(from, offsetOf(doc, e.toLine, e.toCol));
    return { from, to, insert: e.text ?? '' };
  });
}

// What a batch of transactions kept of the text last handed to onChange: the lengths (UTF-16)
// of the unchanged start and end, or [-1, -1] when the batch does not start from that text
// (the app replaced it meanwhile). The page then sends its worker only what changed.
function keptAround(handle, trs) {
  if (!handle.sent || trs[0].startState.doc !== handle.sent.doc) return [-1, -1];
  let start = Infinity;
  let end = Infinity;
  for (const tr of trs) {
    if (!tr.docChanged) continue;
    const before = tr.startState.doc.length;
    tr.changes.iterChangedRanges((fromA, toA) => {
      start = Math.min(start, fromA);
      end = Math.min(end, before - toA);
    });
  }
  return start === Infinity ? [-1, -1] : [start, end];
}

// Asks the app (the engine's worker) and waits for its answer; null when there is none.
function ask(handle, kind, state, pos) {
  if (typeof handle.assist !== 'function') return Promise.resolve(null);
  return new Promise((resolve) => {
    // The document itself: when it is the one last handed to onChange, the app's worker
    // holds its text already, and no copy of a big document is made.
    handle.assist(kind, state.doc, pos, (json) => {
      try {
        resolve(json ? JSON.parse(json) : null);
      } catch {
        resolve(null);
      }
    });
  });
}

const completionTypes = new Set(['property', 'keyword', 'enum', 'constant', 'function', 'method', 'variable', 'type']);

function completionSource(handle) {
  return async (context) => {
    const word = context.matchBefore(/[\w.\-\/$]*/);
    const before = context.state.sliceDoc(Math.max(0, context.pos - 2), context.pos);
    // While typing: only after a word character, a dot, or `: ` (a value starts); never in a
    // number (`<= 10` would fuzzily match `dns1035Label`).
    if (!context.explicit && (!word || word.from === word.to) && !/(\.|: )$/.test(before)) return null;
    if (!context.explicit && word && /(^|[^\w])\d[\w.]*$/.test(word.text)) return null;
    const answer = await ask(handle, 'complete', context.state, context.pos);
    const c = answer && answer.completions;
    if (!c || !c.items || c.items.length === 0) return null;
    // JSON: a member typed after one without a comma gets the comma with it (one edit, one
    // undo step), after the previous value.
    const withComma = (text) => (view, completion, from, to) => {
      const at = Math.min(c.commaAt, from);
      view.dispatch({
        changes: [{ from: at, insert: ',' }, { from, to, insert: text }],
        selection: { anchor: from + 1 + text.length },
        userEvent: 'input.complete',
        annotations: pickedCompletion.of(completion),
      });
    };
    return {
      from: c.from,
      to: c.to,
      options: c.items.map((i) => ({
        label: i.label,
        type: completionTypes.has(i.kind) ? i.kind : 'text',
        detail: i.detail || undefined,
        info: i.info || undefined,
        apply: typeof c.commaAt === 'number' ? withComma(i.apply || i.label) : i.apply || undefined,
        // In JSON the range starts at the quote typed: matched with it, shown without.
        ...(i.filterText ? { label: i.filterText, displayLabel: i.label } : {}),
      })),
      validFor: /^"?[\w\-]*$/,
    };
  };
}

// Enter accepts the selected completion only when its label starts with what was typed (a
// prefix the user can see); after a fuzzy match (`10` in `dns1035Label`) Enter closes the list
// and breaks the line. Tab and a click still accept any item.
function typedBefore(state) {
  const line = state.doc.lineAt(state.selection.main.head);
  const text = line.text.slice(0, state.selection.main.head - line.from);
  return /"?[\w\-$]*$/.exec(text)[0];
}

const enterOnPrefixOnly = Prec.highest(keymap.of([{
  key: 'Enter',
  run(view) {
    if (completionStatus(view.state) !== 'active') return false;
    const picked = selectedCompletion(view.state);
    if (!picked) return false;
    const typed = typedBefore(view.state).toLowerCase();
    const unquoted = typed.replace(/^"/, '');
    const label = picked.label.toLowerCase();
    const shown = (picked.displayLabel ?? picked.label).toLowerCase();
    if (label.startsWith(typed) || shown.startsWith(unquoted)) return false;
    closeCompletion(view);
    return false;
  },
}]));

// Comment-only lines (`# …`) of the visible part get `cm-comment-line`, which wraps them.
const commentLine = Decoration.line({ class: 'cm-comment-line' });
function commentLines(view) {
  const marks = [];
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to;) {
      const line = view.state.doc.lineAt(pos);
      if (/^\s*#/.test(line.text)) marks.push(commentLine.range(line.from));
      pos = line.to + 1;
    }
  }
  return Decoration.set(marks);
}
const wrapComments = ViewPlugin.fromClass(class {
  constructor(view) {
    this.decorations = commentLines(view);
  }
  update(update) {
    if (update.docChanged || update.viewportChanged) this.decorations = commentLines(update.view);
  }
}, { decorations: (v) => v.decorations });

// CodeMirror keeps a hover request that is still waiting when the pointer leaves the editor,
// shows its answer anyway and asks again after any update: with a busy worker, a hover would
// open where the pointer no longer is and stay there. The answer is dropped unless the pointer
// stayed inside (`handle.leaves` counts its exits).
function hoverSource(handle) {
  return async (view, pos) => {
    if (!handle.pointerInside) return null;
    const leaves = handle.leaves;
    const answer = await ask(handle, 'hover', view.state, pos);
    if (!handle.pointerInside || handle.leaves !== leaves) return null;
    const h = answer && answer.hover;
    if (!h) return null;
    return {
      pos: h.from,
      end: h.to,
      above: true,
      create() {
        const dom = document.createElement('div');
        dom.className = 'cm-hover-doc';
        dom.setAttribute('role', 'tooltip');
        const title = document.createElement('code');
        title.textContent = h.title;
        dom.appendChild(title);
        for (const line of h.lines ?? []) {
          const p = document.createElement('p');
          p.textContent = line;
          dom.appendChild(p);
        }
        return { dom };
      },
    };
  };
}

function create(parent, options = {}) {
  const handle = { view: null, onChange: options.onChange, assist: options.assist };
  const assistExtensions = typeof options.assist === 'function'
    ? [
        // While typing, the list is asked for only after a 300 ms pause (CodeMirror's default is
        // 100 ms): a request queued in the worker between two keystrokes delays the next
        // analysis (the browser benchmark: CronTab p50 22.6 → 40.7 ms at 100 ms).
        // Before autocompletion(): its own keymap is Prec.highest too, and the earlier wins.
        enterOnPrefixOnly,
        autocompletion({ override: [completionSource(handle)], icons: false, activateOnTypingDelay: 300 }),
        keymap.of(completionKeymap),
        // Typing closes a hover (as in VS Code): it would cover the lines being edited.
        hoverTooltip(hoverSource(handle), { hoverTime: 350, hideOnChange: true }),
      ]
    : [];
  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    // No drawSelection(): the browser's own caret and selection. CodeMirror's drawn cursor
    // is measured and positioned after every keystroke, which the browser benchmark shows
    // costs the typed character's frame (CronTab p95 about 10 ms lower without it).
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    indentUnit.of('  '),
    EditorState.tabSize.of(2),
    syntaxHighlighting(highlight),
    wrapComments,
    // Tab and Shift+Tab move the focus on, as everywhere else on the page: an editor is no
    // keyboard trap. Indentation is Ctrl+] / Ctrl+[ (defaultKeymap's indentMore/indentLess).
    ...assistExtensions,
    keymap.of([...defaultKeymap, ...historyKeymap]),
    yaml(),
    lintGutter(),
    theme,
    EditorView.contentAttributes.of({
      'aria-label': options.label ?? 'Editor',
      // Focusable by name too (axe's scrollable-region-focusable counts tabindex, not
      // contenteditable): Tab stops here either way.
      tabindex: '0',
      ...(options.readOnly ? { 'aria-readonly': 'true' } : {}),
    }),
    EditorState.readOnly.of(Boolean(options.readOnly)),
  ];
  handle.view = new EditorView({
    parent,
    state: EditorState.create({ doc: options.doc ?? '', extensions }),
    // The user's edit reaches onChange (which posts the analysis to the worker) before the
    // view redraws: the worker computes while CodeMirror updates the DOM, so its answer can
    // be shown in the typed character's own frame or the next. onChange never dispatches to
    // this view synchronously (the page's reactions run in later tasks and microtasks).
    dispatchTransactions(trs, view) {
      const changed = trs.some((tr) => tr.docChanged) && !trs.every((tr) => tr.annotation(external));
      try {
        if (changed && typeof handle.onChange === 'function') {
          // newDoc, not state.doc: the new state (the YAML parse, up to 20 ms in a big text)
          // is computed by view.update below, after the worker has the text.
          const doc = trs[trs.length - 1].newDoc;
          const [keepStart, keepEnd] = keptAround(handle, trs);
          handle.sent = { doc };
          handle.onChange(doc, keepStart, keepEnd);
        }
      } finally {
        view.update(trs);
      }
    },
  });
  handle.leaves = 0;
  handle.view.dom.addEventListener('mousemove', () => { handle.pointerInside = true; });
  handle.view.dom.addEventListener('mouseleave', () => {
    handle.pointerInside = false;
    handle.leaves += 1;
  });
  // The first edit keeps most of the text the editor opened with (the page's worker holds it).
  handle.sent = { doc: handle.view.state.doc };
  return handle;
}

// A diagnostic as compared with the ones shown (at their places as mapped through the edits
// since they were set).
const diagnosticKey = (d, from, to) => `${from} ${to} ${d.severity} ${d.source} ${d.message} ${d.fixes}`;

// Whether the editor shows exactly `list` already: then setting it would only redraw the
// marked lines (and the gutter) in the answer's frame.
function showing(state, list) {
  const shown = [];
  forEachDiagnostic(state, (d, from, to) => shown.push(diagnosticKey(d, from, to)));
  if (shown.length !== list.length) return false;
  const next = list.map((d) => diagnosticKey(d, d.from, d.to)).sort();
  shown.sort();
  return shown.every((k, i) => k === next[i]);
}

function setDiagnostics(handle, diags) {
  const doc = handle.view.state.doc;
  const list = [];
  for (const d of diags ?? []) {
    const from = offsetOf(doc, d.fromLine, d.fromCol);
    const to = Math.max(from, offsetOf(doc, d.toLine ?? d.fromLine, d.toCol ?? d.fromCol));
    list.push({
      from,
      to,
      severity: d.severity === 'error' || d.severity === 'warning' ? d.severity : 'info',
      message: d.message ?? '',
      source: d.source,
      // The fixes' edits, for `showing` (the actions are made from them).
      fixes: JSON.stringify(d.fixes ?? []),
      actions: (d.fixes ?? []).map((f) => ({
        name: f.title.replace(/`/g, ''),
        apply(view) {
          view.dispatch({ changes: changesOf(view.state.doc, f.edits), userEvent: 'input.fix' });
        },
      })),
    });
  }
  if (showing(handle.view.state, list)) return;
  handle.view.dispatch(cmSetDiagnostics(handle.view.state, list));
}

function focusAt(handle, line, col) {
  const view = handle.view;
  const pos = offsetOf(view.state.doc, line, col);
  view.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
  view.focus();
}

function setDoc(handle, text) {
  const view = handle.view;
  if (view.state.doc.toString() === text) return;
  view.dispatch({
    changes: { from: 0, to: view.state.doc.length, insert: text },
    annotations: external.of(true),
  });
}

function getDoc(handle) {
  return handle.view.state.doc.toString();
}

function applyEdits(handle, edits) {
  const view = handle.view;
  view.dispatch({ changes: changesOf(view.state.doc, edits), userEvent: 'input.fix' });
  view.focus();
}

function destroy(handle) {
  handle.onChange = null;
  handle.assist = null;
  handle.view.destroy();
}

// Each editor keeps its own history (CodeMirror's), and Ctrl+Z acts on the focused editor
// only. Outside the editors the browser's own undo would replay its page-wide stack into
// whichever editor last had a native edit (a paste in the Previous CRD, undone while the
// focus is on a button): outside an editable element, undo and redo do nothing.
const editable = (t) => t instanceof Element && t.closest('input, textarea, select, [contenteditable="true"]');
document.addEventListener('keydown', (e) => {
  if (!(e.ctrlKey || e.metaKey) || !/^[zy]$/i.test(e.key) || editable(e.target)) return;
  e.preventDefault();
}, true);
document.addEventListener('beforeinput', (e) => {
  if (e.inputType !== 'historyUndo' && e.inputType !== 'historyRedo') return;
  const focused = document.activeElement;
  if (!(e.target instanceof Element) || !focused || !e.target.contains(focused)) e.preventDefault();
}, true);

window.CrdEditor = { create, setDiagnostics, focusAt, setDoc, getDoc, applyEdits, destroy };

// The page's wasm memory, for the browser benchmark's memory figure (Trunk announces the
// started module with its exports).
window.addEventListener('TrunkApplicationStarted', (e) => {
  window.__pageMemory = e.detail && e.detail.wasm && e.detail.wasm.memory;
});
