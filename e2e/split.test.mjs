// End-to-end tests of the page's second wasm module (issue 29, xtask/src/wasm_split.rs): the
// first paint and the CronTab example's analysis download one wasm module; the first
// completion, in the worker, loads the second one once, and the studio goes on working.
//
//   BASE_URL=http://127.0.0.1:8765/ node --test split.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { DIST, useStudio } from './harness.mjs';

const requests = [];
// The glue's console line each time a thread loads the second module.
const loads = [];
const studio = useStudio('split', {
  wait: 'Object',
  // The page's requests and its worker's, and their console lines.
  setup: (page) => {
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.text().includes('second wasm module loaded')) loads.push(m.text());
    });
  },
});
const { paste, until, verdict } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

const OBJECT = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
spec:
  cronSpec: "* * * * */5"
  `;
const wasm = () => requests.filter((u) => u.endsWith('.wasm')).map((u) => u.split('/').pop());
const second = () => wasm().filter((u) => u.endsWith('_split.wasm'));

test('the first paint and a gallery analysis download only the first wasm module', async () => {
  assert.match(await verdict(), /^Accepted/);
  const select = page.getByRole('combobox', { name: 'Examples' });
  const title = await select.locator('option[value="crontab"]').textContent();
  await select.selectOption('crontab');
  await page.locator('.notice').filter({ hasText: title }).waitFor();
  assert.match(await verdict(), /^Accepted/);
  await page.waitForTimeout(500);
  assert.deepEqual(second(), [], `no second module yet: ${wasm()}`);
  assert.deepEqual(loads, [], 'no second module loaded yet');
  assert.equal(new Set(wasm()).size, 1, `one wasm module (the page loads twice): ${wasm()}`);
});

test('the first completion loads the second module once, and completion works', async () => {
  // The cursor inside the object's spec (the assist tests' way).
  await paste('Object', OBJECT);
  await page.waitForTimeout(150);
  await verdict();
  const labels = async () => {
    await page.keyboard.press('Control+Space');
    return until(() => {
      const list = document.querySelector('.cm-tooltip-autocomplete');
      return list && [...list.querySelectorAll('.cm-completionLabel')].map((e) => e.textContent);
    }, null, 'the completion list');
  };
  assert.ok((await labels()).includes('image'));
  // From the network, or from the service worker's cache (it caches the whole build once the
  // first visit has painted; openFresh loads the page twice).
  assert.equal(loads.length, 1, `the second module, once: ${loads}`);
  assert.ok(second().length <= 1, `fetched at most once: ${wasm()}`);
  await page.keyboard.press('Escape');
  assert.ok((await labels()).includes('replicas'));
  await page.keyboard.press('Escape');
  assert.equal(loads.length, 1, `still once: ${loads}`);
  assert.deepEqual(studio.errors, []);
});

test('the page thread can load the second module too (a synchronous request)', async () => {
  // The placeholders' fallback on the page's thread (the profile keeps what the page runs in
  // the first module, but a window must be able to load the rest).
  const name = readdirSync(DIST).find((f) => f.endsWith('_split.wasm'));
  const size = await page.evaluate((name) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', new URL(name, document.baseURI).href, false);
    xhr.overrideMimeType('text/plain; charset=x-user-defined');
    xhr.send();
    const text = xhr.responseText;
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
    const module = new WebAssembly.Module(bytes);
    return WebAssembly.Module.imports(module).length > 0 ? bytes.length : 0;
  }, name);
  assert.ok(size > 100_000, `compiled ${size} bytes`);
});
