// The browser benchmark (`cargo xtask bench --browser`): the release page in headless Chromium
// beside a bare textarea page that only echoes (the physical limit), in the same run.
//
//   BASE_URL=http://127.0.0.1:PORT/ CORPUS=../../shared/corpus [BENCH_ONLY=crontab] node bench.mjs
//
// For each case it types one character at a time into an editor, each keystroke changing the
// findings (the name of an unknown top-level field), and waits for the Problems region to show
// the new name before the next keystroke. It prints keystroke → Problems updated (from the
// keydown to the next animation frame after the region changed: p50, p95, max), main-thread
// long tasks while typing (count, longest), cold load → first findings, and the memory after
// loading. The argo cases type in the object, in a new top-level field of the CRD (its content
// unchanged: the previous compile's content work is reused) and in a field inside the version's
// schema (an unknown field: the `spec` entry is parsed and decoded again per keystroke, and the
// decoded CRD, unchanged, reuses the content work; an edit of what the decoder reads, such as
// a description, costs a full compile). A benchmark, not a test: it prints figures and never
// fails on them. `e2e/latency-trace.mjs` shows where one keystroke's time goes.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch } from './harness.mjs';

const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const CORPUS = resolve(process.env.CORPUS ?? '../../shared/corpus');
const KEYS = Number(process.env.BENCH_KEYS ?? 30);
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
// BENCH_ONLY=crontab (or echo, argo) runs only the cases whose name holds it (and the echo page).
const ONLY = (process.env.BENCH_ONLY ?? '').toLowerCase();
const wanted = (name) => !ONLY || name.toLowerCase().includes(ONLY);

/** The echo page: a textarea whose every input is copied into a "Problems" region. */
const ECHO = `<!DOCTYPE html><html><body>
<textarea aria-label="Object" rows="20" cols="80"></textarea>
<section role="region" aria-label="Problems"><p id="out"></p></section>
<script>
const ta = document.querySelector('textarea');
const out = document.getElementById('out');
ta.addEventListener('input', () => {
  const m = /^([a-z]+):/m.exec(ta.value);
  out.textContent = 'unknown field "' + (m ? m[1] : '') + '"';
});
</script></body></html>`;

/**
 * The worker echo page: the same textarea, but each input goes to a Web Worker that only sends
 * the name back, and the region is updated when the answer arrives. The physical limit of any
 * page whose findings come from a worker (the studio's design), measured beside the echo page.
 */
const WORKER_ECHO = `<!DOCTYPE html><html><body>
<textarea aria-label="Object" rows="20" cols="80"></textarea>
<section role="region" aria-label="Problems"><p id="out"></p></section>
<script>
const ta = document.querySelector('textarea');
const out = document.getElementById('out');
const source = 'onmessage = (e) => { const m = /^([a-z]+):/m.exec(e.data); postMessage(m ? m[1] : ""); };';
const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
worker.onmessage = (e) => { out.textContent = 'unknown field "' + e.data + '"'; };
ta.addEventListener('input', () => worker.postMessage(ta.value));
</script></body></html>`;

/** Installed in the page before its scripts: the probes the benchmark reads. */
function probes() {
  const b = (window.__bench = {
    t0: 0,
    expect: null,
    samples: [],
    longTasks: [],
    firstFindings: null,
  });
  document.addEventListener('keydown', () => (b.t0 = performance.now()), true);
  const watch = () => {
    const region = document.querySelector('[role="region"][aria-label="Problems"]');
    if (!region) return false;
    const check = () => {
      if (b.firstFindings === null) {
        const status = document.querySelector('[role="status"]');
        const text = status ? status.textContent : region.textContent;
        if (/Accepted|Rejected|unknown field/.test(text)) b.firstFindings = performance.now();
      }
      if (b.expect !== null && region.textContent.includes(b.expect)) {
        b.expect = null;
        const t0 = b.t0;
        requestAnimationFrame(() => b.samples.push(performance.now() - t0));
      }
    };
    new MutationObserver(check).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
    check();
    return true;
  };
  if (!watch()) {
    const again = new MutationObserver(() => watch() && again.disconnect());
    document.addEventListener('DOMContentLoaded', () => watch() || again.observe(document.body, { childList: true, subtree: true }));
  }
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
}

function quantile(xs, q) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1).padStart(7) : '      -');

async function typeCase(page, label, { settle = 40, line = 0, shown = (n) => `"${n}"` } = {}) {
  const editor = label === 'echo' ? page.locator('textarea') : page.locator(`.cm-content[aria-label="${label}"]`);
  await editor.click();
  await page.keyboard.press('Control+Home');
  if (line === 0) {
    // A new first line `z: 1`: an unknown top-level field; each key then renames it.
    await page.keyboard.type('z: 1\n');
  }
  await page.waitForFunction((z) => {
    const r = document.querySelector('[role="region"][aria-label="Problems"]');
    return r && r.textContent.includes(z);
  }, shown('z'), { timeout: 120_000 });
  await page.keyboard.press('Control+Home');
  // Line `line` (0-based) holds the field `z` after its indentation (End, then Home, goes to
  // the end of the indentation).
  for (let i = 0; i < line; i++) await page.keyboard.press('ArrowDown');
  if (line > 0) {
    await page.keyboard.press('End');
    await page.keyboard.press('Home');
  }
  await page.keyboard.press('ArrowRight');
  await page.evaluate(() => {
    window.__bench.samples = [];
    window.__bench.longTasks = [];
  });
  let name = 'z';
  for (let i = 0; i < KEYS; i++) {
    const key = ALPHABET[i % ALPHABET.length];
    name += key;
    await page.evaluate((n) => (window.__bench.expect = n), shown(name));
    await page.keyboard.press(key);
    await page.waitForFunction((n) => window.__bench.samples.length >= n, i + 1, { timeout: 120_000 });
    await page.waitForTimeout(settle);
  }
  return page.evaluate(() => ({ samples: window.__bench.samples, longTasks: window.__bench.longTasks }));
}

async function loadStudio(context, texts) {
  const page = await context.newPage();
  await page.addInitScript(probes);
  await page.goto(BASE_URL);
  if (texts && wanted('argo')) {
    await page.evaluate((t) => {
      localStorage.setItem('crd-studio.crd', JSON.stringify(t.crd));
      localStorage.setItem('crd-studio.object', JSON.stringify(t.object));
      localStorage.setItem('crd-studio.old-object', JSON.stringify(''));
    }, texts);
  } else {
    await page.evaluate(() => localStorage.clear());
  }
  await page.reload();
  await page.waitForFunction(() => window.__bench.firstFindings !== null, null, { timeout: 120_000 });
  const load = await page.evaluate(() => window.__bench.firstFindings);
  await page.locator('.cm-content[aria-label="Object"]').waitFor();
  return { page, load };
}

async function memory(page) {
  const js = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : NaN));
  let worker = NaN;
  let workerJs = NaN;
  for (const w of page.workers()) {
    const m = await w.evaluate(() => ({
      wasm: self.__engineMemory ? self.__engineMemory.buffer.byteLength : NaN,
      js: self.performance && performance.memory ? performance.memory.usedJSHeapSize : NaN,
    })).catch(() => ({ wasm: NaN, js: NaN }));
    worker = m.wasm;
    workerJs = m.js;
  }
  const pageWasm = await page.evaluate(() => (window.__pageMemory ? window.__pageMemory.buffer.byteLength : NaN));
  return { js, worker, workerJs, pageWasm };
}

function row(name, r) {
  const s = r.samples;
  const lt = r.longTasks;
  console.log(
    `${name.padEnd(44)} ${fmt(quantile(s, 0.5))} ${fmt(quantile(s, 0.95))} ${fmt(Math.max(...s))} ${String(lt.length).padStart(5)} ${fmt(lt.length ? Math.max(...lt) : 0)} ${fmt(r.load)}`,
  );
}

const browser = await launch('crd-studio-bench-', { args: ['--enable-precise-memory-info'] });
const context = browser.context;
try {
  console.log(`browser benchmark: ${KEYS} keystrokes per case, ms`);
  console.log(`${'case'.padEnd(44)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'max'.padStart(7)} ${'long'.padStart(5)} ${'longest'.padStart(7)} ${'load'.padStart(7)}`);

  // The echo page: the physical limit of keystroke → paint.
  {
    const page = await context.newPage();
    await page.addInitScript(probes);
    await page.setContent(ECHO);
    await page.evaluate(probes);
    const r = await typeCase(page, 'echo');
    row('echo page (textarea, same browser)', { ...r, load: NaN });
    await page.close();
  }
  // The same through a Web Worker: the limit for findings computed off the main thread.
  {
    const page = await context.newPage();
    await page.addInitScript(probes);
    await page.setContent(WORKER_ECHO);
    await page.evaluate(probes);
    const r = await typeCase(page, 'echo');
    row('worker echo page (textarea + Web Worker)', { ...r, load: NaN });
    await page.close();
  }
  // The CronTab example.
  if (wanted('CronTab')) {
    const { page, load } = await loadStudio(context, null);
    const r = await typeCase(page, 'Object');
    row('CronTab, typing in the object', { ...r, load });
    await page.close();
  }
  // argo-workflows `workflows` with one of its examples.
  const crdPath = join(CORPUS, 'crds/argo-workflows/full-argoproj.io_workflows.yaml');
  const objectPath = join(CORPUS, 'objects/argo-workflows/examples__steps.yaml');
  let texts = null;
  try {
    texts = { crd: readFileSync(crdPath, 'utf8'), object: readFileSync(objectPath, 'utf8') };
  } catch {
    console.log(`argo cases skipped: ${crdPath} not found`);
  }
  if (texts && wanted('argo')) {
    {
      const { page, load } = await loadStudio(context, texts);
      const mem = await memory(page);
      const r = await typeCase(page, 'Object');
      row('argo workflows (2.8 MB), typing in the object', { ...r, load });
      const mb = (x) => (Number.isFinite(x) ? `${(x / 1048576).toFixed(1)} MB` : 'n/a');
      console.log(
        `memory after loading argo: worker wasm ${mb(mem.worker)}, worker JS heap ${mb(mem.workerJs)}, page JS heap ${mb(mem.js)}, page wasm ${mb(mem.pageWasm)}`,
      );
      await page.close();
    }
    {
      const { page, load } = await loadStudio(context, texts);
      const r = await typeCase(page, 'CRD', { settle: 60 });
      row('argo workflows (2.8 MB), typing in the CRD', { ...r, load });
      await page.close();
    }
    {
      // An edit inside the version's schema (an unknown field of the `spec` property's
      // schema): the text inside `spec` changes on every keystroke, the decoded CRD does not.
      // The CRD is loaded with the field `z` there already.
      const lines = texts.crd.split('\n');
      const at = lines.findIndex((l) => l === '            description: WorkflowSpec is the specification of a Workflow.');
      if (at < 0) {
        console.log('argo schema case skipped: the spec schema line was not found');
      } else {
        lines.splice(at, 0, '            z: 1');
        const { page, load } = await loadStudio(context, { ...texts, crd: lines.join('\n') });
        const r = await typeCase(page, 'CRD', {
          settle: 60,
          line: at,
          shown: (n) => `openAPIV3Schema.properties.spec.${n}"`,
        });
        row('argo workflows (2.8 MB), typing in its schema', { ...r, load });
        await page.close();
      }
    }
  }
} finally {
  await browser.close();
}
