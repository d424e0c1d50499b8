// End-to-end tests of the engine's Web Worker: the page analyses in a worker, typing quickly
// in either editor ends with the findings of the final text, and an engine crash (a test build
// only: `--features test-hooks` makes the worker panic on a CRD text holding
// `crd-studio-test: panic`) loses nothing.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test worker.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, useStudio } from './harness.mjs';

const studio = useStudio('worker', {
  open: false,
  // The crash test makes the worker log its panic: page errors only.
  consoleErrors: false,
  // Counts the workers the page starts (Playwright's own 'worker' events can come late).
  setup: (page) =>
    page.addInitScript(() => {
      const Original = window.Worker;
      window.__workersStarted = 0;
      window.Worker = function (...args) {
        window.__workersStarted += 1;
        return new Original(...args);
      };
    }),
});
const { editor, paste, verdict: settled, screenshot } = studio;
let page;
let context;
before(async () => {
  await studio.ready;
  ({ page, context } = studio);
});
const pageErrors = studio.errors;
const problems = () => page.getByRole('region', { name: 'Problems' });
const statusLine = () => page.getByRole('status');

test('the engine runs in one Web Worker; typing quickly in both editors ends with the final findings', async () => {
  await page.goto(BASE_URL);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await editor('Object').waitFor();
  await settled();
  assert.match(await statusLine().textContent(), /^Accepted/);
  // Playwright learns of workers asynchronously: wait until it has.
  for (let i = 0; i < 50 && page.workers().length === 0; i++) await page.waitForTimeout(100);
  const workers = page.workers();
  assert.equal(workers.length, 1, 'one worker');
  assert.match(workers[0].url(), /worker\.js$/);

  // The Object: a new first line, typed with no pause between keys.
  await editor('Object').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('quickfield: 1\n', { delay: 0 });
  await problems().getByText('unknown field "quickfield"').waitFor();
  // Only the final name is listed: no finding of an intermediate text survives.
  assert.equal(await problems().getByText(/unknown field "quick/).count(), 1);

  // The CRD: the same, at its top.
  await editor('CRD').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('crdfield: 1\n', { delay: 0 });
  await problems().getByText('unknown field "crdfield"').waitFor();
  assert.equal(await problems().getByText(/unknown field "crd/).count(), 1);
  await settled();
  assert.match(await statusLine().textContent(), /^Rejected/);
  await screenshot('worker-01-typed-quickly.png');

  // Undo both: accepted again.
  for (const label of ['CRD', 'Object']) {
    await editor(label).click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Delete');
  }
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.deepEqual(pageErrors, []);
});

test('keystrokes in the CRD send the worker only what changed, and it rebuilds the exact text', async () => {
  const splices = () => page.workers()[0].evaluate(() => self.__splices ?? 0);
  const before = await splices();
  const crd = editor('CRD');
  // A field at the top (characters of one and two UTF-16 units), typed without pauses.
  await crd.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('zé😀x: 1\n', { delay: 0 });
  await problems().getByText('unknown field "zé😀x"').waitFor();
  // Then at the end, after them: a comment; then the field goes again.
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n# é😀 end', { delay: 0 });
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Delete');
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.ok((await splices()) > before + 5, `splices: ${before} → ${await splices()}`);
  assert.equal(await problems().getByText(/unknown field/).count(), 0);
  assert.deepEqual(pageErrors, []);
});

test('an engine crash names its input, restarts the worker and keeps every text', async () => {
  const crd = editor('CRD');
  await crd.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('# crd-studio-test: panic\n');
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  assert.match(text, /The engine crashed while analysing the CRD text \(\d+ lines\) and the Object text \(\d+ lines\)/);
  assert.match(text, /deliberate panic/);
  assert.match(text, /your texts are kept/);
  await screenshot('worker-02-crash.png');
  // The texts are all there.
  assert.match(await crd.textContent(), /crd-studio-test: panic/);
  assert.match(await editor('Object').textContent(), /my-new-cron-object/);
  // Remove the line: a fresh worker analyses again, and the banner goes.
  await crd.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Delete');
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  await alert.waitFor({ state: 'detached' });
  assert.equal(page.workers().length, 1, 'the crashed worker was replaced, not added to');
});

test('after a crash, a reload opens the texts without analysing them until the user asks (issue 17, item 11)', async () => {
  const crd = editor('CRD');
  await crd.click();
  await page.keyboard.press('Control+Home');
  // One edit: typed key by key, the crash remembered could be that of a text one key short
  // of the one saved, when the machine is slow (a reload would then analyse the saved one).
  await page.keyboard.insertText('# crd-studio-test: panic\n');
  await page.getByRole('alert').filter({ hasText: 'The engine crashed' }).waitFor();
  // Saved, with the crash remembered.
  await page.waitForFunction(() => (localStorage.getItem('crd-studio.crd') ?? '').includes('crd-studio-test: panic') && localStorage.getItem('crd-studio.crashed-on') !== null);
  await page.reload();
  const paused = page.getByRole('alert').filter({ hasText: 'Last time, the engine crashed on these texts' });
  await paused.waitFor();
  assert.equal(await page.locator('.topbar [role="status"]').textContent(), 'Not analysed (the engine crashed on these texts)');
  assert.equal(await page.getByRole('alert').filter({ hasText: 'The engine crashed while' }).count(), 0, 'no second crash on load');
  assert.match(await editor('CRD').textContent(), /crd-studio-test: panic/);
  // Asking runs it (into the same deliberate panic).
  await paused.getByRole('button', { name: 'Analyse now' }).click();
  await page.getByRole('alert').filter({ hasText: 'The engine crashed while' }).waitFor();
  // An edit that removes the cause analyses normally, and the next load is not paused.
  await editor('CRD').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Delete');
  await page.waitForFunction(() => document.querySelector('.topbar [role="status"]')?.textContent.startsWith('Accepted'));
  await page.waitForFunction(() => localStorage.getItem('crd-studio.crashed-on') === null && !(localStorage.getItem('crd-studio.crd') ?? '').includes('panic'));
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.topbar [role="status"]')?.textContent.startsWith('Accepted'));
  assert.equal(await paused.count(), 0);
});

const ZONE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
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
              x-kubernetes-validations:
                - rule: "timestamp('2024-07-01T12:00:00Z').getHours('America/New_York') == 8"
                  message: noon UTC is 8 in New York in July
              properties:
                cronSpec:
                  type: string
                image:
                  type: string
`;

test('a rule naming a time zone: the worker fetches the zone database only then, and the rule sees the zone', async () => {
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  await page.goto(BASE_URL);
  await editor('Object').waitFor();
  await settled();
  assert.ok(!requests.some((u) => u.endsWith('tzdb.bin')), 'not fetched for the example');
  await page.evaluate((crd) => localStorage.setItem('crd-studio.crd', JSON.stringify(crd)), ZONE_CRD);
  await page.goto(BASE_URL);
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.ok(requests.some((u) => u.endsWith('tzdb.bin')), 'fetched once a rule named a zone');
  assert.equal(await problems().getByText(/unknown time zone/).count(), 0);
  await page.evaluate(() => localStorage.clear());
});

// A CRD whose fourteen rules each cost about 800,000 on a 400-item list: one object uses the
// whole per-object CEL budget (seconds of work), ten objects far longer than any test waits.
const SLOW_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: slows.example.com
spec:
  group: example.com
  names: {kind: Slow, plural: slows}
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
            x-kubernetes-validations:
${Array.from({ length: 14 }, (_, i) => `            - rule: "self.l.all(x, self.l.all(y, x != 'never${i}'))"`).join('\n')}
            properties:
              l:
                type: array
                maxItems: 400
                items: {type: string, maxLength: 4}
`;
const slowObject = (i, n = 400) =>
  `apiVersion: example.com/v1\nkind: Slow\nmetadata: {name: s${i}}\nspec:\n  l: [${Array(n).fill('a').join(', ')}]\n`;
const SLOW_OBJECTS = Array.from({ length: 10 }, (_, i) => slowObject(i)).join('---\n');

const topStatus = () => page.locator('.topbar [role="status"]');

test('a long analysis shows its progress, offers Stop after 2 s, and Stop restarts the engine keeping the texts (issue 17, item 6)', async () => {
  await page.goto(BASE_URL);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await editor('Object').waitFor();
  await settled();
  await paste('Object', SLOW_OBJECTS);
  await settled();
  const workers = () => page.evaluate(() => window.__workersStarted);
  const before = await workers();
  await paste('CRD', SLOW_CRD);
  // Progress: objects done of those known, and the seconds.
  const progress = page.locator('.topbar .progress');
  await progress.filter({ hasText: /\d+ of 10 objects/ }).waitFor();
  const stop = page.getByRole('button', { name: 'Stop' });
  await stop.waitFor();
  assert.match(await progress.textContent(), /\d+ s$/);
  assert.match(await topStatus().textContent(), /^Analysing/, 'the live status itself stays short');
  await screenshot('worker-04-long-analysis.png');
  await page.setViewportSize({ width: 360, height: 740 });
  await stop.scrollIntoViewIfNeeded();
  await screenshot('worker-04-long-analysis-360.png');
  await page.setViewportSize({ width: 1280, height: 800 });
  await stop.click();
  await topStatus().filter({ hasText: /^Stopped after \d+ s: not analysed$/ }).waitFor();
  const bar = page.getByRole('alert').filter({ hasText: 'You stopped the analysis' });
  await bar.waitFor();
  assert.equal(await stop.count(), 0);
  assert.equal(await workers(), before + 1, 'a fresh worker replaced the busy one');
  assert.equal(await page.locator('.bottom.stale').count(), 1, 'the results shown are dimmed: they are older than the texts');
  await screenshot('worker-05-stopped.png');
  // Nothing typed is lost.
  assert.match(await editor('CRD').textContent(), /never13/);
  assert.match(await editor('Object').textContent(), /name: s9/);
  // The next edit is analysed at once by the fresh worker (a short list: cheap rules).
  await paste('Object', slowObject(0, 3));
  await topStatus().filter({ hasText: /^Accepted/ }).waitFor();
  await bar.waitFor({ state: 'detached' });
  assert.deepEqual(pageErrors, []);
});

test('a newer edit cancels an analysis that has run for a second, and is answered without waiting for it (issue 17, item 6)', async () => {
  const workers = () => page.evaluate(() => window.__workersStarted);
  const before = await workers();
  await paste('Object', SLOW_OBJECTS);
  await page.locator('.topbar .progress').filter({ hasText: /[1-9]\d* s/ }).waitFor();
  await paste('Object', slowObject(1, 3));
  // Ten objects at the CEL budget take far longer than this test's 20 s wait: the answer
  // comes only because the busy worker was replaced.
  await topStatus().filter({ hasText: /^Accepted/ }).waitFor();
  assert.equal(await workers(), before + 1, 'the busy worker was replaced by one fresh worker');
  assert.match(await editor('Object').textContent(), /name: s1/);
  await page.evaluate(() => localStorage.clear());
  assert.deepEqual(pageErrors, []);
});
