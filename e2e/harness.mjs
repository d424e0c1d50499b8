// What every end-to-end test (and the browser benchmark) shares: the environment the xtask
// hands over, headless Chromium with this machine's flags in a fresh profile, a static server
// for dist/ under a sub-path, and the studio's page helpers (editor access, paste, polling, the
// verdict, screenshots).
//
// Environment: BASE_URL (the served test page, `cargo xtask e2e` sets it), DIST_DIR (the built
// page, for tests that serve it themselves), SCREENSHOT_DIR (where screenshots go; none taken
// without it), CHROMIUM (the browser binary, default /usr/bin/chromium).
//
// A test file of one page starts with
//
//   const studio = useStudio('name', { wait: 'Object' });
//   const { editor, paste, until, screenshot } = studio;
//   let page;
//   before(async () => { page = await studio.ready; });
//
// and tests of several pages or browsers use the page-taking functions below.
import { after, before } from 'node:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The served test page. */
export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8765/';
/** The built page (dist/), for tests that serve it themselves. */
export const DIST = resolve(process.env.DIST_DIR ?? join(HERE, '..', 'dist'));
/** Where screenshots go, or null: then `screenshot` takes none. */
export const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR ? resolve(process.env.SCREENSHOT_DIR) : null;
/** Playwright's default timeout for the tests' actions and waits. */
export const TIMEOUT = 20_000;
/** The result tabs, by the suffix of their ids (`#tab-…`, `#panel-…`). */
export const TABS = ['problems', 'stored', 'cel', 'get', 'conversion', 'tests'];

/** A file of the repository's examples gallery (`examples/<slug>/<file>`). */
export const example = (slug, file) => readFileSync(join(HERE, '..', 'examples', slug, file), 'utf8');
/** A file of the repository, by its path from the root. */
export const repoFile = (path) => readFileSync(join(HERE, '..', path), 'utf8');

// ---------------------------------------------------------------------------------------
// The browser.

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A persistent context in a fresh profile (`prefix` names its folder), 1280 x 800 unless
 * `options.viewport` says otherwise, with Playwright's timeout `options.timeout` (default
 * TIMEOUT; `null` keeps Playwright's own). `close()` closes it and removes the profile.
 */
export async function launch(prefix, options = {}) {
  const { timeout = TIMEOUT, ...rest } = options;
  const profile = mkdtempSync(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    ...rest,
    args: [...CHROMIUM_ARGS, ...(rest.args ?? [])],
  });
  if (timeout !== null) context.setDefaultTimeout(timeout);
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** Lets pages of `origin` read and write the clipboard (the Copy and Share buttons). */
export async function allowClipboard(context, origin = new URL(BASE_URL).origin) {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
}

/**
 * Records the page's uncaught errors and (unless `console` is false) its console errors in
 * `errors`; returns `errors`.
 */
export function recordErrors(page, errors = [], { console = true } = {}) {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
  if (console) {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
  }
  return errors;
}

/**
 * Opens the studio at `url` with an empty autosave (the CronTab example) and waits for the
 * editor labelled `wait`.
 */
export async function openFresh(page, { url = BASE_URL, wait = 'Object' } = {}) {
  await page.goto(url);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await editor(page, wait).waitFor();
}

// ---------------------------------------------------------------------------------------
// Serving dist/ under a sub-path.

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.bin': 'application/octet-stream',
};

/**
 * The header policy: index.html's meta policy plus frame-ancestors (header-only); the same
 * text as xtask/src/serve_dir.rs (a unit test there checks it).
 */
export const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/**
 * Serves `dir` under `prefix` (e.g. `/tools/crd-studio/`), with CSP as a header, and `pages`
 * (path → HTML, read at each request, no policy) at their paths, on 127.0.0.1: for tests that
 * need more than `cargo xtask serve-dir` (a sub-path as on a GitHub Pages project site, a docs
 * page of the test's own). Resolves to `{ origin, close() }`.
 */
export async function serveDist(dir, prefix, pages = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pages[path] !== undefined) {
      res.writeHead(200, { 'content-type': TYPES['.html'] });
      res.end(pages[path]);
      return;
    }
    if (!path.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    let rel = path.slice(prefix.length) || 'index.html';
    if (rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (!file.startsWith(normalize(dir))) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((r) => server.close(r)) };
}

// ---------------------------------------------------------------------------------------
// The studio's page: functions of a page (or, for `editor` and `verdict`, of a scope in it
// such as an embed's element).

/** The CodeMirror editor labelled `label` ("CRD", "Object", "Previous CRD", …) in `scope`. */
export const editor = (scope, label) => scope.locator(`.cm-content[aria-label="${label}"]`);

/** Replaces an editor's whole text the way a user pastes (an input event, not setDoc). */
export async function paste(page, label, text, scope = page) {
  await editor(scope, label).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

/**
 * Evaluates `fn(arg)` in the page every 50 ms until it returns something truthy, and returns
 * that; fails naming `what` after `timeout` ms.
 */
export async function until(page, fn, arg, what, timeout = TIMEOUT) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await page.evaluate(fn, arg);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(50);
  }
}

/**
 * Polls `check` (an async predicate run here, in Node; a throw counts as false) every 100 ms
 * until it holds; fails naming `what` after `timeout` ms.
 */
export async function waitFor(check, what, timeout = TIMEOUT) {
  const end = Date.now() + timeout;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the status line of the studio in `scope` (a page, or a locator such as an
 * embed's element) shows a verdict, not "Analysing…" nor "Loading…", and returns its text.
 * It first waits until no studio's newest edit is unanswered (`test-hooks` builds tell), so
 * the verdict is the one of the texts as they are. With `startsWith`, waits for a verdict that
 * starts so; `what` names it in the error.
 */
export async function verdict(scope, { startsWith = '', what = 'a verdict', timeout = TIMEOUT } = {}) {
  const status = scope.locator('[role="status"]').first();
  let text = '';
  const shown = async () => {
    // The test build says at once whether a studio's newest edit is unanswered (the status
    // line says "Analysing…" only after 100 ms, and a loaded machine reads the previous
    // verdict in between).
    const unanswered = await status.evaluate(
      () => Object.values(globalThis.__crdStudioUnanswered ?? {}).some(Boolean),
      undefined,
      { timeout: 1000 },
    );
    if (unanswered) return false;
    text = (await status.textContent({ timeout: 1000 })) ?? '';
    return text && !text.includes('Analysing') && !text.includes('Loading') && text.startsWith(startsWith);
  };
  await waitFor(shown, startsWith ? `${what} starting ${startsWith}` : what, timeout).catch((e) => {
    throw new Error(`${e.message} (the status says: ${text})`);
  });
  return text;
}

/**
 * A screenshot of `target` (a page or a locator) into SCREENSHOT_DIR, or nothing without it.
 * Options: `fullPage`; `settle` (ms to wait first); `widths` (each a viewport width, the file
 * then named `<name>-<width>.png`, at `height`, 800 by default) and `themes` (each selected in
 * the Theme control, `<name>-<theme>[-<width>].png`). `page` is the page that owns a locator
 * target when widths or themes are given. The viewport and theme are restored afterwards.
 */
export async function screenshot(target, name, options = {}) {
  if (!SCREENSHOT_DIR) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const { fullPage = false, settle = 0, widths, themes, height = 800 } = options;
  const page = options.page ?? target;
  const base = name.replace(/\.png$/, '');
  const shoot = async (file) => {
    if (settle) await page.waitForTimeout(settle);
    await target.screenshot({ path: join(SCREENSHOT_DIR, file), ...(fullPage ? { fullPage } : {}) });
  };
  if (!widths && !themes) return shoot(name.endsWith('.png') ? name : `${name}.png`);
  const viewport = page.viewportSize();
  for (const theme of themes ?? [null]) {
    if (theme) await page.getByLabel('Theme').selectOption(theme);
    for (const width of widths ?? [null]) {
      if (width) await page.setViewportSize({ width, height });
      await shoot(`${[base, theme, width].filter((p) => p !== null).join('-')}.png`);
    }
  }
  if (viewport) await page.setViewportSize(viewport);
  if (themes) await page.getByLabel('Theme').selectOption('system');
}

/**
 * One browser with one studio page for a whole test file: registers the `before` hook that
 * launches Chromium in a fresh profile (folder `crd-studio-e2e-<name>-`) and opens the page,
 * and the `after` hook that closes it. Options:
 * - `wait`: the editor label to wait for after opening (default 'Object'); `open: false`
 *   leaves the page blank (the tests navigate themselves);
 * - `clipboard`: allow the Copy and Share buttons to use the clipboard;
 * - `consoleErrors: false`: record page errors only (where the test makes the page log some);
 * - `launch`: options for `launch`;
 * - `setup(page, context)`: runs before the page is opened (init scripts, listeners).
 * Returns the session: `ready` (a promise of the page, opened), `page`, `context` and `errors`
 * (page and console errors, recorded from the start) once the hook has run, and the page
 * helpers bound to the page.
 */
export function useStudio(name, options = {}) {
  const { wait = 'Object', open = true, clipboard = false, consoleErrors = true, setup } = options;
  const session = {
    page: null,
    context: null,
    errors: [],
    editor: (label) => editor(session.page, label),
    paste: (label, text) => paste(session.page, label, text),
    until: (fn, arg, what, timeout) => until(session.page, fn, arg, what, timeout),
    verdict: (opts) => verdict(session.page.locator('.topbar'), opts),
    /** Waits for a verdict starting with `prefix`. */
    statusIs: (prefix) => verdict(session.page.locator('.topbar'), { startsWith: prefix }),
    screenshot: (file, opts) => screenshot(session.page, file, opts),
  };
  // Node 20 starts a file's top-level `before` hooks without waiting for the ones before them:
  // a file's own hook awaits `ready` (the page, once opened) instead of reading `page` early.
  let opened;
  session.ready = new Promise((resolve, reject) => {
    opened = { resolve, reject };
  });
  session.ready.catch(() => {});
  let browser;
  before(async () => {
    try {
      browser = await launch(`crd-studio-e2e-${name}-`, options.launch);
      session.context = browser.context;
      if (clipboard) await allowClipboard(browser.context);
      session.page = browser.context.pages()[0] ?? (await browser.context.newPage());
      recordErrors(session.page, session.errors, { console: consoleErrors });
      if (setup) await setup(session.page, browser.context);
      if (open) await openFresh(session.page, { wait });
      opened.resolve(session.page);
    } catch (e) {
      opened.reject(e);
      throw e;
    }
  });
  after(async () => {
    await browser?.close();
  });
  return session;
}
