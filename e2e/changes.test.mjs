// End-to-end tests of changing a CRD (issue 16): the Previous CRD editor (collapsed by
// default, autosaved, kept in share links), the CRD checked as an update of it, and the Changes
// tab: the update's verdict, the changes by version located in both editors, and what happens
// to the sample object as stored under the previous revision.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test changes.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, editor as editorIn, useStudio } from './harness.mjs';

const studio = useStudio('changes', { wait: 'Object', clipboard: true });
const { editor, paste, until } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
const changes = () => page.getByRole('region', { name: 'Changes' });
/** Full-page screenshots in both themes at 1280 and 360 px (`<name>-<theme>-<width>.png`). */
const screenshot = (name) =>
  studio.screenshot(name, { themes: ['light', 'dark'], widths: [1280, 360], settle: 200, fullPage: true });
const PREVIOUS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
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
                size: {type: integer}
                color: {type: string}
`;

// The new revision removes spec.color.
const NEW = PREVIOUS.replace('                color: {type: string}\n', '');

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  size: 3
  color: red
`;

test('the Previous CRD is collapsed and the Changes tab says what to do without it', async () => {
  assert.equal(await editor('Previous CRD').count(), 0);
  const toggle = page.getByRole('button', { name: 'Previous CRD', exact: true });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await page.getByRole('tab', { name: /Changes/ }).click();
  await changes().getByText('Paste the previous revision in Previous CRD to see what changes').waitFor();
  // Its button opens the editor.
  await changes().getByRole('button', { name: 'Open Previous CRD' }).click();
  await editor('Previous CRD').waitFor();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
});

test('a removed field: the data loss on the stored sample object, located in the Object editor', async () => {
  await paste('Object', WIDGET);
  await paste('CRD', NEW);
  await paste('Previous CRD', PREVIOUS);
  const panel = changes();
  await panel.getByRole('heading', { name: /The CRD update/ }).waitFor();
  const effect = panel.locator('.effect', { hasText: 'object.yaml · Widget w' });
  await effect.waitFor();
  await effect.getByText('data lost: 1 field').waitFor();
  assert.match(await effect.locator('.lost-fields').textContent(), /spec\.color/);
  // `kubectl apply` of the same file now names an unknown field; a create too.
  const verdicts = await effect.locator(".effect-row").allTextContents();
  assert.ok(verdicts.some((v) => /Unchanged update \(kubectl apply\)rejected.*unknown field "spec\.color"/.test(v)), verdicts.join('\n'));
  assert.ok(verdicts.some((v) => /^Createrejected/.test(v)), verdicts.join('\n'));
  // The update itself is accepted (removing a field is not refused by the server).
  assert.equal(await panel.locator('#changes-update .pill').textContent(), 'accepted');
  // The lost field links to its place in the Object editor.
  await effect.getByRole('button', { name: 'in: go to object.yaml:7:3' }).click();
  await until(() => document.activeElement?.getAttribute('aria-label') === 'Object', null, 'focus in Object');
  // Problems has the warning too, at the field.
  await page.getByRole('tab', { name: /Problems/ }).click();
  await page.getByRole('region', { name: 'Problems' }).locator('.problem.warning', { hasText: 'spec.color' }).first().waitFor();
  await page.getByRole('tab', { name: /Changes/ }).click();
  await screenshot('changes-data-loss');
});

// Written for the merge with the breaking-change comparison (crd_diff::diff_crds): until then
// the engine lists no changes and this assertion is skipped, saying why.
test('a breaking finding for the removed field, located in both editors (needs crd_diff)', async (t) => {
  const panel = changes();
  await panel.locator('.effect').first().waitFor();
  const rows = panel.locator('.change-list .change');
  if ((await rows.count()) === 0) {
    console.log('changes.test.mjs: analysis.changes is empty (crd_diff::diff_crds is not merged yet): skipping the located breaking finding');
    t.skip('analysis.changes is empty until crd_diff::diff_crds is merged');
    return;
  }
  const removed = panel.locator('.change.breaking', { hasText: 'spec.color' }).first();
  await removed.waitFor();
  assert.equal(await removed.locator('.sev').textContent(), 'breaking');
  // Collapse the Previous CRD: its link opens it and puts the cursor there.
  await page.getByRole('button', { name: 'Previous CRD', exact: true }).click();
  assert.equal(await editor('Previous CRD').count(), 0);
  await removed.getByRole('button', { name: /^previous: go to previous-crd\.yaml:\d+:\d+$/ }).click();
  await until(() => document.activeElement?.getAttribute('aria-label') === 'Previous CRD', null, 'focus in Previous CRD');
  const line = await page.evaluate(() => document.getSelection()?.focusNode?.parentElement?.closest('.cm-line')?.textContent ?? '');
  assert.match(line, /color/);
  await removed.getByRole('button', { name: /^new: go to crd\.yaml:\d+:\d+$/ }).click();
  await until(() => document.activeElement?.getAttribute('aria-label') === 'CRD', null, 'focus in CRD');
});

test('an update the server refuses: its error in the Changes tab, at the CRD', async () => {
  await paste('CRD', NEW.replace('scope: Namespaced', 'scope: Cluster'));
  const panel = changes();
  await until(() => document.querySelector('#changes-update .pill')?.textContent === 'rejected', null, 'rejected update');
  const error = panel.locator('.change-findings .change.error', { hasText: 'spec.scope: Invalid value: "Cluster": field is immutable' });
  await error.waitFor();
  await error.getByRole('button').click();
  await until(() => document.activeElement?.getAttribute('aria-label') === 'CRD', null, 'focus in CRD');
  // The status line says the CRD is rejected.
  assert.match(await page.locator('.topbar [role="status"]').textContent(), /reject/i);
  await screenshot('changes-update-refused');
  await paste('CRD', NEW);
  await until(() => document.querySelector('#changes-update .pill')?.textContent === 'accepted', null, 'accepted update');
});

test('the Previous CRD is saved and restored, and kept in share links', async () => {
  // Autosave waits 300 ms after the last edit.
  await until(() => (JSON.parse(localStorage.getItem('crd-studio.old-crd') ?? '""') || '').includes('color: {type: string}'), null, 'autosave');
  await page.reload();
  await editor('Object').waitFor();
  await page.getByRole('button', { name: 'Previous CRD', exact: true }).click();
  await editor('Previous CRD').waitFor();
  assert.match(await editor('Previous CRD').textContent(), /color: \{type: string\}/);
  await page.getByRole('button', { name: 'Share' }).click();
  await until(() => location.hash.startsWith('#s1.'), null, 'share link');
  const link = await page.evaluate(() => location.href);
  // Another profile's first visit opens the link with the Previous CRD.
  const other = await studio.context.newPage();
  await other.goto(BASE_URL);
  await other.evaluate(() => localStorage.clear());
  await other.goto('about:blank');
  await other.goto(link);
  await editorIn(other, 'Object').waitFor();
  await other.getByRole('button', { name: 'Previous CRD', exact: true }).click();
  await editorIn(other, 'Previous CRD').waitFor();
  assert.match(await editorIn(other, 'Previous CRD').textContent(), /color: \{type: string\}/);
  await other.close();
});

test('a Previous CRD beside the unchanged example is the user\'s work: Reset asks, clears it, and it is restorable', async () => {
  const dialog = page.getByRole('dialog', { name: 'Reset to the CronTab example?' });
  await page.getByRole('button', { name: 'Reset example' }).click();
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Reset', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
  // The example's texts, and a Previous CRD typed beside them.
  if ((await editor('Previous CRD').count()) === 0) await page.getByRole('button', { name: 'Previous CRD', exact: true }).click();
  await paste('Previous CRD', PREVIOUS);
  await page.getByRole('button', { name: 'Reset example' }).click();
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Reset', exact: true }).click();
  await until(() => (document.querySelector('.cm-content[aria-label="Previous CRD"]')?.textContent ?? 'x').trim() === '', null, 'the Previous CRD cleared');
  await page.getByRole('button', { name: 'Restore my previous work' }).click();
  await until(() => (document.querySelector('.cm-content[aria-label="Previous CRD"]')?.textContent ?? '').includes('color: {type: string}'), null, 'the Previous CRD restored');
});

test('no console errors', () => {
  assert.deepEqual(studio.errors, []);
});
