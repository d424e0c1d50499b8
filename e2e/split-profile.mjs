// The profile that decides what the page's second wasm module holds (xtask/src/wasm_split.rs
// runs this on every build; it is not a test). DIST_DIR is a copy of dist/ whose wasm is
// `wasm-split --instrument`ed and whose glue leaves the instance's exports in
// `globalThis.__crdStudioWasm`; each instance's profile goes to PROFILE_DIR.
//
// What stays in the first module: what the worker runs for the first paint of the main page
// and of the embed demo (CronTab and the demo's examples), and what the page's thread runs for
// those, for every gallery example and every result tab. Everything else (completion, hover,
// fixes, the other examples' analyses, the update path, ...) the worker fetches on first use.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, TABS, launch, paste, serveDist, verdict } from './harness.mjs';

const OUT = process.env.PROFILE_DIR;
if (!OUT) throw new Error('PROFILE_DIR is not set');

// Runs in a page or worker: the instance's profile as bytes.
const grab = `(() => {
  const e = globalThis.__crdStudioWasm;
  const size = 1 << 20;
  const ptr = e.__wbindgen_malloc(size, 1);
  const n = e.__write_profile(ptr, size);
  return Array.from(new Uint8Array(e.memory.buffer, ptr, n));
})()`;

let written = 0;
async function save(target, name) {
  const bytes = await target.evaluate(grab);
  writeFileSync(join(OUT, `${name}.prof`), Buffer.from(bytes));
  written += 1;
}
async function saveWorkers(page, name) {
  const workers = page.workers();
  if (workers.length === 0) throw new Error(`${name}: no worker`);
  for (const [i, w] of workers.entries()) await save(w, `${name}-worker-${i}`);
}

/** A CRD with `n` fields, each with a rule: an analysis that takes seconds. */
function slowCrd(n) {
  const fields = Array.from(
    { length: n },
    (_, i) =>
      `              f${i}:\n                type: string\n                maxLength: 10\n` +
      `                x-kubernetes-validations:\n                - rule: self.size() < 5\n` +
      `                  messageExpression: "'too long: ' + self"\n`,
  ).join('');
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: slows.example.com
spec:
  group: example.com
  names: {kind: Slow, plural: slows, singular: slow, listKind: SlowList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
${fields}`;
}

const server = await serveDist(DIST, '/studio/');

// The first paint alone, twice more in fresh browsers: what runs depends on timing (which
// messages find the worker busy, which timers fire first); the profiles are merged.
for (let i = 0; i < 2; i++) {
  const fresh = await launch(`crd-studio-split-${i}-`);
  try {
    const page = await fresh.context.newPage();
    await page.goto(`${server.origin}/studio/index.html`);
    await verdict(page, { timeout: 60_000 });
    await page.waitForTimeout(1000);
    await saveWorkers(page, `fresh-${i}`);
    await save(page, `fresh-${i}-page`);
  } finally {
    await fresh.close();
  }
}
const { context, close } = await launch('crd-studio-split-');
try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
  await page.goto(`${server.origin}/studio/index.html`);
  await verdict(page, { timeout: 60_000 });
  // The gallery's CronTab again (what a visitor who opens the gallery first sees).
  const select = page.getByRole('combobox', { name: 'Examples' });
  await select.selectOption('crontab');
  await page.waitForTimeout(300);
  await verdict(page, { timeout: 60_000 });
  await page.waitForTimeout(500);
  await saveWorkers(page, 'main');

  // A second visit: the service worker controls it and the texts come back from the autosave.
  const again = await context.newPage();
  again.on('pageerror', (e) => console.log(`page error: ${e.message}`));
  await again.goto(`${server.origin}/studio/index.html`);
  await verdict(again, { timeout: 60_000 });
  await again.waitForTimeout(1000);
  await saveWorkers(again, 'reload');
  await save(again, 'reload-page');
  await again.close();

  // The page's thread only from here: every example, every tab, a completion list.
  const slugs = await select
    .locator('option')
    .evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  for (const slug of slugs) {
    const title = await select.locator(`option[value="${slug}"]`).textContent();
    await select.selectOption(slug);
    await page.locator('.notice').filter({ hasText: title }).waitFor();
    await page.waitForTimeout(300);
    await verdict(page, { timeout: 60_000 });
    for (const tab of TABS) {
      const button = page.locator(`#tab-${tab}`);
      if ((await button.count()) > 0 && (await button.isVisible())) await button.click();
    }
    await page.locator('#tab-problems').click();
  }
  await paste(page, 'Object', 'apiVersion: stable.example.com/v1\nkind: CronTab\nspec:\n  ');
  await page.keyboard.press('Control+Space');
  await page.locator('.cm-tooltip-autocomplete').waitFor({ timeout: 60_000 });
  await page.keyboard.press('Escape');
  // A slow analysis: the page's "still working" state, its ticking timer, the big-text
  // autosave (timers the quick examples never reach).
  await paste(page, 'CRD', slowCrd(150));
  await page.waitForTimeout(1500);
  await verdict(page, { timeout: 120_000 });
  await page.waitForTimeout(2500);
  await save(page, 'main-page');

  const demo = await context.newPage();
  demo.on('pageerror', (e) => console.log(`demo error: ${e.message}`));
  await demo.goto(`${server.origin}/studio/demo/`);
  await demo.waitForFunction(
    () => [...document.querySelectorAll('crd-studio')].some((e) => e.dataset.state === 'ready'),
    null,
    { timeout: 60_000 },
  );
  await verdict(demo.locator('crd-studio').first(), { timeout: 60_000 });
  await demo.waitForTimeout(500);
  await saveWorkers(demo, 'embed');
  // The page's thread: every playground of the demo, each scrolled into view (they mount
  // lazily; their analyses, in the worker, may fetch the second module).
  const embeds = demo.locator('crd-studio');
  for (let i = 0; i < (await embeds.count()); i++) {
    await embeds.nth(i).scrollIntoViewIfNeeded();
    await verdict(embeds.nth(i), { timeout: 60_000 });
  }
  await save(demo, 'embed-page');
  console.log(`split profile: ${written} profiles (${slugs.length} examples)`);
} finally {
  await close();
  await server.close();
}
