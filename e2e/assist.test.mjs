// End-to-end tests of help while writing (issue 15, parts 2, 3 and 6): Ctrl+Space completion
// in the object editor, in the CRD editor and inside a CEL rule, hover documentation of a
// field, and a finding's fix applied from Problems and from the editor's lint tooltip.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test assist.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { SCREENSHOT_DIR, example, useStudio } from './harness.mjs';

const EXAMPLE_CRD = example('crontab', 'crd.yaml');
// The example with descriptions and an enum, for hover and the enum fix.
const CRD = EXAMPLE_CRD.replace(
  '                cronSpec:\n                  type: string\n',
  '                cronSpec:\n                  type: string\n                  description: The schedule, in cron format.\n',
).replace(
  '                replicas:\n                  type: integer\n',
  '                replicas:\n                  type: integer\n                mode:\n                  type: string\n                  enum: [Fast, Slow]\n',
);

const studio = useStudio('assist', { wait: 'Object' });
const { editor, paste, until, verdict } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
/** Screenshots at each width (`<name>-<width>.png`), after the layout settles. */
const screenshot = (name, ...widths) => studio.screenshot(name, { widths, settle: 300 });
async function pointAt(label, needle, delta = needle.length) {
  const p = await page.evaluate(([label, needle, delta]) => {
    const content = document.querySelector(`.cm-content[aria-label="${label}"]`);
    for (const line of content.querySelectorAll('.cm-line')) {
      const i = line.textContent.indexOf(needle);
      if (i < 0) continue;
      line.scrollIntoView({ block: 'center' });
      let at = i + delta;
      const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
      let node;
      while ((node = walker.nextNode())) {
        if (at <= node.length) {
          const r = document.createRange();
          if (at > 0) {
            r.setStart(node, at - 1);
            r.setEnd(node, at);
            const b = r.getBoundingClientRect();
            return { x: b.right - 1, y: (b.top + b.bottom) / 2 };
          }
          r.setStart(node, 0);
          r.setEnd(node, 1);
          const b = r.getBoundingClientRect();
          return { x: b.left + 1, y: (b.top + b.bottom) / 2 };
        }
        at -= node.length;
      }
    }
    return null;
  }, [label, needle, delta]);
  assert.ok(p, `${needle} in the ${label} editor`);
  return p;
}

/** Puts the cursor at the end of `needle` (a line's text ending there). */
async function cursorAfter(label, needle) {
  // A hover shown where the mouse rests could cover the line: it is closed first.
  await page.mouse.move(5, 5);
  await until(() => !document.querySelector('.cm-tooltip-hover'), null, 'no hover tooltip');
  const p = await pointAt(label, needle);
  await page.mouse.click(p.x + 1, p.y);
}

/** Ctrl+Space, then the labels of the completion list. */
async function complete() {
  await page.keyboard.press('Control+Space');
  return until(() => {
    const list = document.querySelector('.cm-tooltip-autocomplete');
    if (!list) return null;
    return [...list.querySelectorAll('.cm-completionLabel')].map((e) => e.textContent);
  }, null, 'the completion list');
}

async function closeCompletion() {
  await page.keyboard.press('Escape');
  await until(() => !document.querySelector('.cm-tooltip-autocomplete'), null, 'the list to close');
}

/** The newest status line once it no longer says "Analysing". */
async function settled(what) {
  await page.waitForTimeout(150);
  return verdict({ what });
}

const OBJECT = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
spec:
  cronSpec: "* * * * */5"
  `;

test('Ctrl+Space in the object editor offers the schema\'s fields, with type and description', async () => {
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
  await settled('the first analysis');
  const labels = await complete();
  for (const want of ['image', 'replicas', 'mode']) assert.ok(labels.includes(want), `${want} in ${labels}`);
  assert.ok(!labels.includes('cronSpec'), `a field already written is not offered: ${labels}`);
  const detail = await page.evaluate(() => [...document.querySelectorAll('.cm-tooltip-autocomplete li')]
    .map((li) => li.textContent).join('|'));
  assert.match(detail, /replicas\s*integer/);
  await screenshot('assist-object-completion', 1280, 360);
  // Enter inserts the chosen field with its colon.
  await page.keyboard.type('ima');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'image', null, 'image first');
  await page.keyboard.press('Enter');
  const text = await editor('Object').textContent();
  assert.match(text, /image: $/m);
  // Enum values of a value.
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(OBJECT + 'mode: ');
  const values = await complete();
  assert.deepEqual(values.sort(), ['Fast', 'Slow']);
  await closeCompletion();
});

test('Ctrl+Space in the CRD editor offers OpenAPI keywords at a schema node and type values', async () => {
  await paste('CRD', CRD.replace('                replicas:\n                  type: integer\n',
    '                replicas:\n                  type: integer\n                  ma\n'));
  await cursorAfter('CRD', '                  ma');
  const labels = await complete();
  for (const want of ['maximum', 'maxLength', 'format']) {
    assert.ok(labels.includes(want), `${want} in ${labels}`);
  }
  assert.ok(!labels.includes('type'), `not a keyword typed: ${labels}`);
  await page.keyboard.type('xi');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'maximum', null, 'maximum first');
  await closeCompletion();
  // The values of `type`.
  await cursorAfter('CRD', '                  type: integer');
  for (let i = 0; i < 'integer'.length; i++) await page.keyboard.press('Backspace');
  const types = await complete();
  assert.deepEqual(types.sort(), ['array', 'boolean', 'integer', 'number', 'object', 'string']);
  await closeCompletion();
  await screenshot('assist-crd-completion', 1280);
  await closeCompletion();
  await paste('CRD', CRD);
});

test('Ctrl+Space inside a CEL rule offers the fields of self and the receiver methods', async () => {
  await paste('CRD', CRD);
  await settled('the CRD');
  await paste('CRD', CRD.replace('- rule: self.size() > 0', '- rule: self.size() > 0 && self.'));
  await cursorAfter('CRD', '&& self.');
  const labels = await complete();
  for (const want of ['startsWith', 'matches', 'size']) assert.ok(labels.includes(want), `${want} in ${labels}`);
  await closeCompletion();
  // Half typed: the quote is not closed yet, the YAML is broken; the last CRD with schemas answers.
  await paste('CRD', CRD.replace('"!has(self.replicas) || self.replicas <= 10"', '"self.'));
  await settled('the broken CRD');
  await cursorAfter('CRD', '- rule: "self.');
  const fields = await complete();
  for (const want of ['cronSpec', 'image', 'replicas', 'mode']) assert.ok(fields.includes(want), `${want} in ${fields}`);
  await screenshot('assist-cel-completion', 1280, 360);
  await closeCompletion();
  await paste('CRD', CRD);
});

test('hovering a field in the object shows its description and type', async () => {
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
  await settled('the object');
  const box = await pointAt('Object', 'cronSpec', 3);
  await page.mouse.move(box.x, box.y);
  const shown = await until(() => document.querySelector('.cm-hover-doc')?.textContent, null, 'the hover tooltip');
  assert.match(shown, /cronSpec: string/);
  assert.match(shown, /The schedule, in cron format\./);
  await screenshot('assist-hover', 1280);
  await page.mouse.move(5, 5);
});

test('a fix in Problems removes its finding', async () => {
  await paste('CRD', CRD);
  await page.getByRole('tab', { name: /Problems/ }).click();
  await paste('Object', OBJECT + 'imgae: x\n');
  await settled('the unknown field');
  const fix = page.getByRole('button', { name: 'Fix: Rename to image' });
  await fix.waitFor();
  await screenshot('assist-fix', 1280, 360);
  await fix.click();
  await until(() => !document.querySelector('#panel-problems')?.textContent.includes('imgae'), null, 'the finding to go');
  const text = await editor('Object').textContent();
  assert.match(text, /image: x/);
  assert.equal(await page.getByRole('button', { name: /^Fix: / }).count(), 0);
});

test('a fix in the editor\'s lint tooltip removes its finding', async () => {
  await paste('Object', OBJECT + 'mode: fats\n');
  await settled('the enum value');
  await page.getByRole('button', { name: 'Fix: Change to Fast' }).waitFor();
  // The marker's tooltip, by hovering the marked value.
  await until(() => document.querySelector('.cm-lintRange'), null, 'the marker');
  const box = await pointAt('Object', 'mode: fats', 2);
  await page.mouse.move(box.x, box.y);
  const action = page.locator('.cm-tooltip .cm-diagnosticAction', { hasText: 'Change to Fast' });
  await action.waitFor();
  await screenshot('assist-lint-fix', 1280);
  await page.mouse.move(box.x, box.y);
  await action.click();
  await until(() => !document.querySelector('#panel-problems')?.textContent.includes('fats'), null, 'the finding to go');
  assert.match(await editor('Object').textContent(), /mode: Fast/);
});

// JSON texts (issue 15, gap 2): the same help, with JSON's quoting.

/** The whole text of `label`'s editor (its lines; the JSON texts here are short enough to be
 * all rendered). */
async function docText(label) {
  return page.evaluate((label) => [...document.querySelectorAll(`.cm-content[aria-label="${label}"] .cm-line`)]
    .map((l) => l.textContent).join('\n'), label);
}

/** A 360 px wide screenshot: `reopen` shows the tooltip again at that width (a resize
 * closes it), and again at 1280 px afterwards. */
async function narrowShot(name, reopen) {
  if (!SCREENSHOT_DIR) return;
  await page.setViewportSize({ width: 360, height: 800 });
  await page.waitForTimeout(300);
  await page.evaluate(() => document.querySelector('.cm-focused .cm-activeLine')?.scrollIntoView({ block: 'center' }));
  await reopen();
  await page.waitForTimeout(200);
  await studio.screenshot(name);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(300);
  await reopen();
}

/** Enter on the list's selected item, after CodeMirror's interaction delay (75 ms after the
 * list changed, Enter would insert a line break instead). */
async function accept() {
  await page.waitForTimeout(150);
  await page.keyboard.press('Enter');
}

const JSON_OBJECT = `{
  "apiVersion": "stable.example.com/v1",
  "kind": "CronTab",
  "metadata": {"name": "my-cron"},
  "spec": {
    "cronSpec": "* * * * */5",
    "ima
  }
}`;

// The example's CRD as compact JSON: one line a schema node.
const JSON_CRD = `{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "crontabs.stable.example.com"},
  "spec": {
    "group": "stable.example.com",
    "names": {"kind": "CronTab", "plural": "crontabs", "singular": "crontab", "listKind": "CronTabList"},
    "scope": "Namespaced",
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.replicas >= 0"}],
            "properties": {
              "cronSpec": {"type": "string", "description": "The schedule, in cron format."},
              "image": {"type": "string"},
              "replicas": {"type": "integer"},
              "mode": {"type": "string", "enum": ["Fast", "Slow"]}
            }
          }
        }
      }}
    }]
  }
}`;

const ACCEPTED = /^Accepted · CRD crontabs\.stable\.example\.com accepted · 1 object accepted/;

test('Ctrl+Space in a JSON object inserts quoted fields and values: the text stays JSON the studio accepts', async () => {
  await paste('CRD', CRD);
  await paste('Object', JSON_OBJECT);
  await settled('the half-typed JSON object');
  // The opening quote typed: matched with it, replaced with it.
  await cursorAfter('Object', '"ima');
  const labels = await complete();
  assert.deepEqual(labels, ['image'], `only image matches "ima: ${labels}`);
  await screenshot('assist-json-object-completion', 1280);
  await narrowShot('assist-json-object-completion-360.png', complete);
  await accept();
  assert.match(await docText('Object'), /^ {4}"image": $/m);
  await page.keyboard.type('"nginx",');
  // A key place without a quote typed, after the comma: the fields not written yet.
  await page.keyboard.press('Enter');
  await page.keyboard.type('    ');
  const keys = await complete();
  for (const want of ['replicas', 'mode']) assert.ok(keys.includes(want), `${want} in ${keys}`);
  assert.ok(!keys.includes('image') && !keys.includes('cronSpec'), `written keys are not offered: ${keys}`);
  await page.keyboard.type('mo');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'mode', null, 'mode first');
  await accept();
  // Inside the value: the enum values, inserted quoted.
  const values = await complete();
  assert.deepEqual(values.sort(), ['Fast', 'Slow']);
  await page.keyboard.type('Sl');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'Slow', null, 'Slow first');
  await accept();
  const text = await docText('Object');
  const parsed = JSON.parse(text);
  assert.deepEqual(parsed.spec, { cronSpec: '* * * * */5', image: 'nginx', mode: 'Slow' });
  assert.match(await settled('the completed JSON object'), ACCEPTED);
});

test('a JSON member completed after one without a comma brings the comma, undone in one step', async () => {
  await paste('CRD', CRD);
  await paste('Object', JSON_OBJECT.replace('"ima\n', '"image": "nginx"\n    "mo\n'));
  await settled('the JSON object missing a comma');
  await cursorAfter('Object', '"mo');
  const labels = await complete();
  assert.deepEqual(labels, ['mode']);
  await accept();
  assert.match(await docText('Object'), /"image": "nginx",\n {4}"mode": $/m);
  // One undo takes the completion and its comma back.
  await page.keyboard.press('Control+z');
  assert.match(await docText('Object'), /"image": "nginx"\n {4}"mo\n/);
  await complete();
  await accept();
  await page.keyboard.type('"Fast"');
  assert.deepEqual(JSON.parse(await docText('Object')).spec, { cronSpec: '* * * * */5', image: 'nginx', mode: 'Fast' });
  assert.match(await settled('the completed JSON object'), ACCEPTED);
});

test('hovering a key of a JSON object shows its description and type', async () => {
  await paste('CRD', CRD);
  await paste('Object', JSON_OBJECT.replace('"ima\n', '"image": "nginx"\n'));
  await settled('the JSON object');
  const box = await pointAt('Object', '"cronSpec"', 4);
  await page.mouse.move(box.x, box.y);
  const shown = await until(() => document.querySelector('.cm-hover-doc')?.textContent, null, 'the hover tooltip');
  assert.match(shown, /cronSpec: string/);
  assert.match(shown, /The schedule, in cron format\./);
  await screenshot('assist-json-hover', 1280);
  await narrowShot('assist-json-hover-360.png', async () => {
    await page.mouse.move(5, 5);
    const p = await pointAt('Object', '"cronSpec"', 4);
    await page.mouse.move(p.x, p.y);
    await until(() => document.querySelector('.cm-hover-doc'), null, 'the hover tooltip');
  });
  await page.mouse.move(5, 5);
});

test('Ctrl+Space in a JSON CRD: keywords quoted at a schema node, self\'s fields inside a rule string', async () => {
  const OBJ = JSON_OBJECT.replace('"ima\n', '"image": "nginx"\n');
  await paste('Object', OBJ);
  await paste('CRD', JSON_CRD.replace('"image": {"type": "string"}', '"image": {"type": "string", "max}'));
  await settled('the half-typed JSON CRD');
  await cursorAfter('CRD', '"max');
  const labels = await complete();
  for (const want of ['maxLength', 'maximum']) assert.ok(labels.includes(want), `${want} in ${labels}`);
  await page.keyboard.type('Le');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'maxLength', null, 'maxLength first');
  await accept();
  await page.keyboard.type('64');
  // Inside the rule's JSON string: the fields of self at the rule's node.
  await cursorAfter('CRD', '"rule": "self.');
  for (let i = 0; i < 'replicas'.length; i++) await page.keyboard.press('Delete');
  const fields = await complete();
  for (const want of ['cronSpec', 'image', 'replicas', 'mode']) assert.ok(fields.includes(want), `${want} in ${fields}`);
  await screenshot('assist-json-cel-completion', 1280);
  await narrowShot('assist-json-cel-completion-360.png', async () => {
    // A cursor move scrolls the long line so that the cursor (and the list) is in view.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowRight');
    return complete();
  });
  await page.keyboard.type('im');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'image', null, 'image first');
  await accept();
  const text = await docText('CRD');
  let crd;
  try { crd = JSON.parse(text); } catch (e) { throw new Error(`${e.message}:\n${text}`); }
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  assert.deepEqual(spec.properties.image, { type: 'string', maxLength: 64 });
  assert.equal(spec['x-kubernetes-validations'][0].rule, 'self.image >= 0');
  // `self.image >= 0` compares a string with an int: the server's compile error, then fixed.
  await cursorAfter('CRD', '"rule": "self.image >= 0');
  for (let i = 0; i < ' >= 0'.length; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type(' != \'\'');
  assert.match(await settled('the completed JSON CRD'), ACCEPTED);
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
});

test('no console errors', () => {
  assert.deepEqual(studio.errors, []);
});
