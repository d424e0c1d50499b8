// End-to-end tests of readable problems (issue 14, items 1-3): each finding has a plain-words
// headline and the exact text beneath it (lines kept, copyable); the CEL gate is a note after
// the errors that marks nothing; the studio's info findings say what the server did quietly,
// in Problems and in the Stored view.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test problems.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { example, useStudio } from './harness.mjs';

const EXAMPLE_CRD = example('crontab', 'crd.yaml');

const studio = useStudio('problems', { wait: 'Object', clipboard: true });
const { editor, paste, until } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
/** Full-page screenshots at each width (`<name>-<width>.png`). */
const screenshot = (name, ...widths) => studio.screenshot(name, { widths, settle: 200, fullPage: true });
const problems = () => page.getByRole('region', { name: 'Problems' });

const OBJECT = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
`;

test('a CEL compile error reads as the rule in the user\'s path, the exact text beneath with its lines, copyable', async () => {
  await page.getByRole('tab', { name: /Problems/ }).click();
  await paste('Object', OBJECT);
  await paste('CRD', EXAMPLE_CRD.replace('self.size() > 0', 'self.szie() <= 10'));
  const row = problems().locator('.problem.error', { hasText: 'does not compile' }).first();
  await row.waitFor();
  const headline = await row.locator('.problem-button').textContent();
  assert.match(
    headline,
    /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.cronSpec\.x-kubernetes-validations\[0\]\.rule: the rule `self\.szie\(\) <= 10` does not compile: undeclared reference to 'szie'/,
  );
  // The headline names the field once, and no Go struct or JSON escape.
  assert.ok(!headline.includes('spec.validation'), headline);
  assert.ok(!headline.includes('\\u003c') && !headline.includes('"Rule"'), headline);
  // The server's exact text, complete: the Go struct, its escapes and the caret diagram on
  // lines of their own.
  const exact = row.locator('pre.exact');
  const text = await exact.textContent();
  assert.ok(
    text.startsWith('spec.validation.openAPIV3Schema.properties[spec].properties[cronSpec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.szie() \\u003c= 10"'),
    text,
  );
  assert.ok(text.endsWith("(in container '')\n | self.szie() <= 10\n | .........^"), text);
  assert.equal(await exact.evaluate((e) => getComputedStyle(e).whiteSpace), 'pre-wrap');
  const lines = await exact.evaluate((e) => {
    const lineHeight = parseFloat(getComputedStyle(e).lineHeight);
    return Math.round((e.getBoundingClientRect().height - 8) / lineHeight);
  });
  assert.ok(lines >= 3, `the caret diagram keeps its lines (${lines} lines)`);
  // Copy gives feedback and puts the exact text on the clipboard.
  const copy = row.getByRole('button', { name: "Copy the server's exact text" });
  await copy.click();
  await until(() => document.querySelector('.problem .copy-exact.done')?.textContent === 'Copied', null, 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  await screenshot('problems-cel', 1280, 360);
});

test('the CEL gate is a note after the blocking error and underlines nothing', async () => {
  await paste('CRD', EXAMPLE_CRD);
  await paste('Object', OBJECT.replace('cronSpec: "* * * * */5"', 'cronSpec: 5'));
  const note = problems().locator('.problem.note', { hasText: 'some validation rules were not checked' });
  await note.waitFor();
  const items = problems().locator('.problem-list > li');
  const n = await items.count();
  // The blocking error first, the note last, as a note (not counted as an error).
  assert.match(await items.first().textContent(), /spec\.cronSpec/);
  assert.match(await items.nth(n - 1).textContent(), /some validation rules were not checked/);
  assert.equal(await problems().locator('.problem.error').count(), 1);
  assert.equal(await note.locator('.sev').textContent(), 'note');
  // The server's message is kept whole under the note's own words.
  assert.equal(
    await note.locator('pre.exact').textContent(),
    '<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  );
  // One mark in the Object editor, on the cronSpec line; none from the note.
  await until(() => document.querySelectorAll('.cm-content[aria-label="Object"] .cm-lintRange').length > 0, null, 'a mark');
  const marks = await page.evaluate(() =>
    [...document.querySelectorAll('.cm-content[aria-label="Object"] .cm-lintRange')].map((m) => m.closest('.cm-line')?.textContent),
  );
  assert.deepEqual(marks, ['  cronSpec: 5']);
  // A click on the note goes to the object's first line.
  await note.locator('.problem-button').click();
  await until(() => document.activeElement?.getAttribute('aria-label') === 'Object', null, 'focus');
  await screenshot('problems-gate', 1280);
});

const WIDGETS = `apiVersion: apiextensions.k8s.io/v1
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
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                name: {type: string, maxLength: 3}
                backup:
                  type: object
                  properties:
                    schedule: {type: string, default: "@daily"}
            status:
              type: object
              properties:
                phase: {type: string}
`;

const WIDGET = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  name: toolong
status:
  phase: Ready
`;

test('info findings say what the server did quietly, in Problems and in the Stored view', async () => {
  await paste('Object', WIDGET.replace('toolong', 'abc'));
  await paste('CRD', WIDGETS);
  const dropped = problems().locator('.problem.info', { hasText: 'status: dropped: version v1 has the status subresource' });
  await dropped.waitFor();
  const backup = problems().locator('.problem.info', { hasText: 'spec.backup: absent, so the default of spec.backup.schedule' });
  await backup.waitFor();
  assert.equal(await problems().locator('.problem.error').count(), 0);
  await screenshot('problems-info', 1280);
  await page.getByRole('tab', { name: 'Stored object' }).click();
  const stored = page.getByRole('region', { name: 'Stored object' });
  await stored.getByText('What the server did quietly').waitFor();
  const notes = await stored.locator('.quiet-notes').textContent();
  assert.match(notes, /status dropped status: version v1 has the status subresource/);
  assert.match(notes, /default not applied spec\.backup: absent, so the default of spec\.backup\.schedule/);
  await screenshot('stored-notes', 1280, 360);

  // Update: the status change is ignored, and an unchanged invalid value is kept by ratcheting.
  await page.getByRole('button', { name: 'Old object' }).click();
  await paste('Old object', WIDGET.replace('Ready', 'Old'));
  await paste('Object', WIDGET);
  await stored.getByText('kept by ratcheting').waitFor();
  const updateNotes = await stored.locator('.quiet-notes').textContent();
  assert.match(updateNotes, /status change ignored status: version v1 has the status subresource, so an update keeps the old object's status/);
  assert.match(updateNotes, /kept by ratcheting spec\.name: accepted although invalid/);
  await screenshot('stored-update', 1280);
  await page.getByRole('tab', { name: /Problems/ }).click();
  await problems().locator('.problem.info', { hasText: 'spec.name: accepted although invalid' }).waitFor();
  assert.equal(await problems().locator('.problem.error').count(), 0);
  assert.deepEqual(studio.errors, []);
});
