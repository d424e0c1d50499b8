// CRD Studio for documentation pages: one module script turns every <crd-studio> element of a
// page into a live playground (see "Embedding in documentation" in README.md).
//
//   <script type="module" src="https://docs.example.org/crd-studio/crd-studio-embed.js"></script>
//   <crd-studio tab="problems" field-validation="Strict" kubernetes-version="1.33" lock="crd" theme="auto">
//   apiVersion: apiextensions.k8s.io/v1
//   kind: CustomResourceDefinition
//   ...
//   ---
//   apiVersion: stable.example.com/v1
//   kind: CronTab
//   ...
//   </crd-studio>
//
// The element's text is the CRD, then a line that is exactly `---`, then the object(s): the
// FIRST such line (after the text's first non-blank line) splits the CRD from the objects, and
// every later `---` separates objects. Without one, the whole text is the CRD. Blank lines
// around the text, trailing blanks and the indentation common to all lines are dropped.
//
// How it works:
// - Every file is found relative to this script's own URL (import.meta.url), never the page's:
//   `crd-studio-embed.json` (written by `cargo xtask build`) names the hashed files Trunk
//   built (the wasm-bindgen JS glue, the wasm, the CSS); `editor.js` (CodeMirror) and
//   `worker.js` (the engine's worker) sit beside it. No request goes to another origin.
// - Nothing is downloaded until the first <crd-studio> comes near the viewport
//   (IntersectionObserver); each element is mounted only then.
// - The page loads the wasm once: all embeds share one module instance, and the one engine
//   worker (which receives the compiled module instead of downloading it again). Each embed
//   is a studio of its own name in that worker (`embed-1`, `embed-2`, ...).
// - Each studio lives in its element's shadow root, with the studio's CSS as a constructable
//   stylesheet shared by all roots: the page's styles do not reach in (`all: initial` on the
//   host stops inherited ones), the studio's do not leak out.
// - Colours: the studio's CSS gives every colour for light and dark (light-dark()); the
//   `theme` attribute picks one: `auto` (or none) follows the reader's prefers-color-scheme,
//   `light` or `dark` fixes it (for a docs site with a single look). It can change at any
//   time (it is read by CSS alone).
// - Content-Security-Policy: a docs page with playgrounds needs only `script-src 'self'
//   'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self'` (with `style-src 'self'`,
//   nothing inline: this script adds no <style> element and no style attribute). See the
//   demo page's policy and README.md.
// - Until it is mounted (and if anything fails), the element shows its text as preformatted
//   text. With JavaScript off the browser shows the text as it is; a site can add
//     crd-studio:not(:defined) { display: block; white-space: pre; font-family: monospace; }
//   or put the text in a <pre> inside the element.

const SCRIPT_URL = import.meta.url;

/** The absolute URL of a file beside this script. */
const asset = (name) => new URL(name, SCRIPT_URL).href;

/** The element's own look, before and after mounting (the studio's CSS comes on top). */
const HOST_CSS = `
:host {
  all: initial;
  color-scheme: light dark;
  display: block;
  margin: 1em 0;
  border: 1px solid var(--border, #d0d7de);
  border-radius: 8px;
  overflow: hidden;
  background: var(--bg, light-dark(#f3f5f8, #0d1117));
  color: var(--text, light-dark(#1f2328, #e6edf3));
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  text-align: start;
}
:host([hidden]) { display: none; }
:host([theme="light" i]) { color-scheme: light; }
:host([theme="dark" i]) { color-scheme: dark; }
.placeholder {
  margin: 0;
  padding: 12px 16px;
  max-height: 24em;
  overflow: auto;
  white-space: pre;
  font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  background: var(--panel, light-dark(#fff, #161b22));
}
.embed-note {
  margin: 0;
  padding: 8px 16px;
  border-bottom: 1px solid var(--border, #d0d7de);
  font-size: 13px;
  color: var(--muted, light-dark(#59636e, #9ea7b3));
}
.embed-note.error {
  color: var(--error, light-dark(#cf222e, #ff7b72));
  background: var(--error-bg, light-dark(#ffebe9, #3a1519));
}
`;

/**
 * The file names of this build: the manifest beside the script, or, where the build has none
 * (`trunk serve` rebuilds dist/ without it), the links Trunk wrote into index.html.
 */
async function findAssets() {
  const defaults = { editor: 'editor.js', worker: 'worker.js' };
  try {
    const response = await fetch(asset('crd-studio-embed.json'));
    if (response.ok) return { ...defaults, ...(await response.json()) };
  } catch {}
  const response = await fetch(asset('index.html'));
  if (!response.ok) throw new Error(`neither crd-studio-embed.json nor index.html is beside ${SCRIPT_URL}`);
  const doc = new DOMParser().parseFromString(await response.text(), 'text/html');
  // Trunk may write absolute paths: only the file names are used, beside this script.
  const file = (selector) => {
    const href = doc.querySelector(selector)?.getAttribute('href');
    return href ? href.split(/[?#]/)[0].split('/').pop() : null;
  };
  const found = {
    ...defaults,
    js: file('link[rel=modulepreload][href*="crd-studio-web"]'),
    wasm: file('link[rel=preload][href$=".wasm"]'),
    css: file('link[rel=stylesheet][href*="style"]'),
  };
  if (!found.js || !found.wasm || !found.css) throw new Error('index.html does not name the studio\'s files');
  return found;
}

/** The studio's CSS for a shadow root: its page-level rules apply to the shadow host. */
function shadowCss(css) {
  return css.replace(/:root\b/g, ':host');
}

let runtime = null;

/**
 * Loads, once per page, the CodeMirror bundle, the studio's CSS and the wasm module, and tells
 * the module where the worker's files are. Resolves to what mounting needs.
 */
function loadRuntime() {
  runtime ??= (async () => {
    const files = await findAssets();
    // The module's `main` must not render the full studio into this page.
    globalThis.__crdStudioEmbed = true;
    // Everything at once: the wasm streams in (and compiles) while the rest arrives.
    const wasm = fetch(asset(files.wasm));
    const [css, , glue] = await Promise.all([
      fetch(asset(files.css)).then((r) => {
        if (!r.ok) throw new Error(`${files.css}: HTTP ${r.status}`);
        return r.text();
      }),
      // A classic script that sets window.CrdEditor; it runs as well as a module.
      window.CrdEditor ? null : import(asset(files.editor)),
      import(asset(files.js)),
    ]);
    await glue.default({ module_or_path: wasm });
    glue.configure_assets(asset(files.worker), asset(files.js));
    const studio = new CSSStyleSheet();
    studio.replaceSync(shadowCss(css));
    return { glue, sheets: [studio, hostSheet()] };
  })();
  return runtime;
}

/** The text without its leading blank lines, trailing blanks and common indentation. */
export function dedent(text) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length && !lines[0].trim()) lines.shift();
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  const indents = lines.filter((l) => l.trim()).map((l) => l.match(/^[ \t]*/)[0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut).trimEnd()).join('\n');
}

/**
 * The CRD and the object text of an element's text: the first line that is exactly `---`
 * (after the first non-blank line: a leading `---` only starts the CRD's document) splits
 * them; later `---` lines stay in the objects, separating several of them.
 */
export function splitTexts(text) {
  const lines = dedent(text).split('\n');
  const start = lines.length && lines[0] === '---' ? 1 : 0;
  const at = lines.findIndex((l, i) => i >= start && l === '---');
  const crd = lines.slice(0, at < 0 ? lines.length : at).join('\n');
  if (at < 0) return { crd: crd ? crd + '\n' : '', object: '' };
  const object = lines.slice(at + 1).join('\n');
  return { crd: crd ? crd + '\n' : '', object: object ? object + '\n' : '' };
}

let hostSheetOnce = null;

/** The element's own stylesheet, one for all elements (no <style> element: CSP-friendly). */
function hostSheet() {
  if (!hostSheetOnce) {
    hostSheetOnce = new CSSStyleSheet();
    hostSheetOnce.replaceSync(HOST_CSS);
  }
  return hostSheetOnce;
}

/** Until mounted, the element's own text shows through a slot, preformatted. */
function placeholder() {
  const pre = document.createElement('pre');
  pre.className = 'placeholder';
  pre.append(document.createElement('slot'));
  return pre;
}

let embeds = 0;

const observer =
  'IntersectionObserver' in window
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (entry.isIntersecting) {
              observer.unobserve(entry.target);
              entry.target.mount();
            }
          }
        },
        // Start a little before the element is visible.
        { rootMargin: '200px 0px' },
      )
    : null;

/** `<crd-studio>`: a CRD playground (see the top of this file). */
class CrdStudioElement extends HTMLElement {
  connectedCallback() {
    if (this.handle || this.dataset.state === 'loading') return;
    if (!this.shadowRoot) {
      const shadow = this.attachShadow({ mode: 'open' });
      shadow.adoptedStyleSheets = [hostSheet()];
      shadow.append(placeholder());
    }
    this.dataset.state = 'waiting';
    if (observer) observer.observe(this);
    else this.mount();
  }

  disconnectedCallback() {
    observer?.unobserve(this);
    // A move (disconnected, then connected again) keeps the studio.
    queueMicrotask(() => {
      if (!this.isConnected && this.handle) {
        this.handle.destroy();
        this.handle = null;
        this.shadowRoot.adoptedStyleSheets = [hostSheet()];
        this.shadowRoot.replaceChildren(placeholder());
        delete this.dataset.state;
      }
    });
  }

  /** Options from the attributes (read once, when mounted). */
  options() {
    const lock = (this.getAttribute('lock') ?? '').toLowerCase().split(/[\s,]+/);
    return {
      tab: this.getAttribute('tab') ?? '',
      fieldValidation: this.getAttribute('field-validation') ?? '',
      kubernetesVersion: this.getAttribute('kubernetes-version') ?? '',
      lockCrd: lock.includes('crd'),
      openUrl: asset('index.html'),
      tests: dedent(this.testsScript()?.textContent ?? ''),
    };
  }

  /** A `<script type="application/yaml" data-tests>` child: test cases for the Tests tab. */
  testsScript() {
    return this.querySelector(':scope > script[type="application/yaml"][data-tests]');
  }

  /** The element's text without its tests script: the CRD, `---`, the objects. */
  ownText() {
    let text = '';
    for (const node of this.childNodes) {
      if (node !== this.testsScript()) text += node.textContent;
    }
    return text;
  }

  async mount() {
    if (this.handle || this.dataset.state === 'loading' || !this.isConnected) return;
    this.dataset.state = 'loading';
    try {
      const { glue, sheets } = await loadRuntime();
      if (!this.isConnected) {
        this.dataset.state = 'waiting';
        return;
      }
      const { crd, object } = splitTexts(this.ownText());
      const shadow = this.shadowRoot;
      shadow.adoptedStyleSheets = sheets;
      const root = document.createElement('div');
      root.className = 'embed-root';
      shadow.replaceChildren(root);
      this.handle = glue.mount_embed(root, `embed-${++embeds}`, crd, object, JSON.stringify(this.options()));
      this.dataset.state = 'ready';
    } catch (error) {
      console.error('<crd-studio> could not start', error);
      this.dataset.state = 'error';
      const note = document.createElement('p');
      note.className = 'embed-note error';
      note.setAttribute('role', 'alert');
      note.textContent = `The playground could not start (${error?.message ?? error}); the text is shown as it is.`;
      const shadow = this.shadowRoot;
      if (!shadow.querySelector('.placeholder')) shadow.replaceChildren(placeholder());
      shadow.prepend(note);
    }
  }
}

if (!customElements.get('crd-studio')) customElements.define('crd-studio', CrdStudioElement);
