// End-to-end tests of the released page in headless Chromium.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test
//
// The tests share one browser profile (fresh per run) and run in order: the reload test
// relies on the text the typing test left in localStorage.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, useStudio } from './harness.mjs';

// The first test opens the page itself: a first visit.
const studio = useStudio('studio', { open: false });
const { editor, paste, verdict, screenshot } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
const problems = () => page.getByRole('region', { name: 'Problems' });
const statusLine = () => page.getByRole('status');

/** Opens the studio on the autosaved texts and waits for the verdict. */
async function openPage() {
  await page.goto(BASE_URL);
  await editor('Object').waitFor();
  await verdict();
}

// Reset example asks first when the texts are the user's own (issue 14, item 6): confirm it.
async function resetExample() {
  await page.getByRole('button', { name: 'Reset example' }).click();
  const dialog = page.locator('dialog.confirm[open]');
  const already = page.locator('.notice', { hasText: 'the CronTab example already' });
  await dialog.or(already).first().waitFor();
  if (await dialog.count()) await dialog.getByRole('button', { name: 'Reset' }).click();
}

test('first visit shows the CronTab example, accepted, with no console errors', async () => {
  await openPage();
  assert.match(await editor('CRD').textContent(), /crontabs\.stable\.example\.com/);
  assert.match(await editor('Object').textContent(), /my-new-cron-object/);
  assert.match(await editor('Object').textContent(), /my-awesome-cron-image/);
  const status = await statusLine().textContent();
  assert.match(status, /^Accepted · CRD crontabs\.stable\.example\.com accepted · 1 object accepted · 0 errors/);
  assert.equal(await problems().locator('.problem.error').count(), 0);
  // Line numbers and YAML highlighting are on.
  assert.ok((await page.locator('.cm-lineNumbers .cm-gutterElement').count()) > 5);
  await screenshot('01-example.png');
  assert.deepEqual(studio.errors, []);
});

test('a YAML syntax error typed into the Object editor is listed, marked and clickable', async () => {
  const object = editor('Object');
  await object.click();
  // Go to the end of line 7, "  image: my-awesome-cron-image", and break it.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('End');
  await page.keyboard.type(': oops');
  assert.match(await object.textContent(), /image: my-awesome-cron-image: oops/);

  const row = problems().locator('.problem.error', { hasText: 'mapping values are not allowed' });
  await row.waitFor();
  const text = await row.textContent();
  assert.match(text, /object\.yaml:7:31/, text);
  assert.match(await statusLine().textContent(), /^Rejected · /);
  // The inline marker is in the Object editor, on line 7.
  await page.locator('.cm-editor:has(.cm-content[aria-label="Object"]) .cm-lintRange-error').first().waitFor();
  await screenshot('02-syntax-error.png');

  // Move focus away, then click the problem: the Object editor gets focus at line 7.
  await editor('CRD').click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CRD');
  await row.locator('button.problem-button').click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Object');
  const activeLine = page.locator('.cm-editor:has(.cm-content[aria-label="Object"]) .cm-activeLine');
  assert.match(await activeLine.textContent(), /image: my-awesome-cron-image: oops/);
  // The cursor sits at column 31 (the second colon): typing there lands before it.
  await page.keyboard.type('X');
  assert.match(await object.textContent(), /my-awesome-cron-imageX: oops/);
  await page.keyboard.press('Backspace');
  await screenshot('03-focused.png');
  assert.deepEqual(studio.errors, []);
});

test('a reload keeps the edited texts; Reset example brings the example back', async () => {
  // Autosave happens on every edit; give the last keystroke's save a moment anyway.
  await page.waitForTimeout(300);
  await openPage();
  assert.match(await editor('Object').textContent(), /image: my-awesome-cron-image: oops/);
  await problems().locator('.problem.error', { hasText: 'mapping values are not allowed' }).waitFor();
  assert.match(await statusLine().textContent(), /^Rejected · /);

  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.doesNotMatch(await editor('Object').textContent(), /oops/);
  assert.equal(await problems().locator('.problem').count(), 0);
  await screenshot('04-reset.png');
  assert.deepEqual(studio.errors, []);
});

const storedPanel = () => page.getByRole('region', { name: 'Stored object' });
const fieldValidation = () => page.getByRole('combobox', { name: 'Field validation' });

const CRONTAB = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
`;

test('field validation: a duplicate field is an error under Strict, a warning under Warn', async () => {
  assert.equal(await fieldValidation().inputValue(), 'Strict');
  await paste('Object', `${CRONTAB}  image: second-image\n`);
  const row = (severity) => problems().locator(`.problem.${severity}`, { hasText: 'already set in map' });
  await row('error').waitFor();
  assert.match(await statusLine().textContent(), /^Rejected · /);

  await fieldValidation().selectOption('Warn');
  await row('warning').waitFor();
  assert.equal(await row('error').count(), 0);
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.match(await statusLine().textContent(), /0 errors, 1 warning/);
  await screenshot('05-warn.png');

  // The stored object panel lists the warning with the object.
  await page.getByRole('tab', { name: 'Stored object' }).click();
  await storedPanel().locator('.warnings li', { hasText: 'already set in map' }).waitFor();

  // The mode is kept across a reload.
  await page.waitForTimeout(200);
  await openPage();
  assert.equal(await fieldValidation().inputValue(), 'Warn');
  await page.getByRole('tab', { name: 'Problems' }).click();
  await row('warning').waitFor();

  await fieldValidation().selectOption('Ignore');
  await page.waitForFunction(() => document.querySelectorAll('.problem').length === 0);
  await fieldValidation().selectOption('Strict');
  await row('error').waitFor();
  await paste('Object', CRONTAB);
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.deepEqual(studio.errors, []);
});

test('Stored object shows the object the server would persist', async () => {
  await page.getByRole('tab', { name: 'Stored object' }).click();
  const stored = storedPanel();
  await stored.locator('.yaml').waitFor();
  const yaml = await stored.locator('.yaml').innerText();
  assert.match(yaml, /^apiVersion: stable\.example\.com\/v1$/m);
  assert.match(yaml, /^kind: CronTab$/m);
  assert.match(yaml, /^ {2}name: my-new-cron-object$/m);
  assert.match(yaml, /^ {2}cronSpec: "\* \* \* \* \*\/5"$/m);
  assert.match(yaml, /^ {2}image: my-awesome-cron-image$/m);
  assert.match(await stored.textContent(), /operation: create/);
  assert.match(await stored.getByRole('group', { name: 'Version' }).textContent(), /Stored \(v1\)/);
  // The Problems panel is behind its tab meanwhile.
  assert.equal(await problems().isVisible(), false);
  await screenshot('06-stored.png');
  assert.deepEqual(studio.errors, []);
});

test('an old object switches to the update path; its problems open and focus it', async () => {
  const toggle = page.getByRole('button', { name: 'Old object' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await editor('Old object').count(), 0);
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await paste('Old object', CRONTAB.replace('my-awesome-cron-image', 'my-old-cron-image'));
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.includes('on update'));
  await storedPanel().getByText('operation: update').waitFor();
  await screenshot('07-update.png');

  // A syntax error in the old object is listed against it.
  await paste('Old object', 'kind: [\n');
  await page.getByRole('tab', { name: 'Problems' }).click();
  const row = problems().locator('.problem.error', { hasText: 'old-object.yaml:' });
  await row.waitFor();
  // Collapse the editor, then click the problem: it opens again with the cursor in it.
  await toggle.click();
  assert.equal(await editor('Old object').count(), 0);
  await row.locator('button.problem-button').click();
  await editor('Old object').waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Old object');
  await screenshot('08-old-object-error.png');

  // Kept across a reload; Clear goes back to the create path.
  await page.waitForTimeout(200);
  await openPage();
  assert.match(await statusLine().textContent(), /on update|Rejected/);
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.waitForFunction(() => {
    const s = document.querySelector('[role="status"]')?.textContent ?? '';
    return s.startsWith('Accepted') && !s.includes('on update');
  });
  await page.getByRole('tab', { name: 'Stored object' }).click();
  await storedPanel().getByText('operation: create').waitFor();
  assert.deepEqual(studio.errors, []);
});

test('Stored object marks applied defaults and lists pruned fields, which jump to the Object editor', async () => {
  // The example CRD with a default for spec.replicas; the object gains a field the schema lacks.
  // The saved text, not the editor's innerText: CodeMirror renders only the lines near the
  // viewport, and the example is longer than that.
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('crd-studio.crd')));
  const crd = saved.replace(
    /( +)replicas:\n( +)type: integer/,
    (_, a, b) => `${a}replicas:\n${b}type: integer\n${b}default: 1`,
  );
  assert.match(crd, /default: 1/);
  await paste('CRD', crd);
  await paste('Object', `${CRONTAB}  extra: 42\n`);
  await page.getByRole('tab', { name: 'Stored object' }).click();
  const stored = storedPanel();

  const replicas = stored.locator('.yl.defaulted', { hasText: 'replicas: 1' });
  await replicas.waitFor();
  assert.equal(await replicas.locator('.badge.default').count(), 1);
  assert.doesNotMatch(await stored.locator('.yaml').innerText(), /extra/);
  assert.match(await stored.locator('.stored-side').innerText(), /spec\.replicas/);

  const pruned = stored.locator('li.pruned', { hasText: 'spec.extra' });
  await pruned.waitFor();
  assert.match(await pruned.innerText(), /object\.yaml:8:3/);
  await screenshot('09-defaults-pruned.png');
  await pruned.locator('button').click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Object');
  const activeLine = page.locator('.cm-editor:has(.cm-content[aria-label="Object"]) .cm-activeLine');
  assert.match(await activeLine.textContent(), /extra: 42/);

  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.deepEqual(studio.errors, []);
});

test("the docs' non-structural schema: the six violations the docs list, at their lines", async () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: foos
    singular: foo
    kind: Foo
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        properties:
          foo:
            pattern: "abc"
          metadata:
            type: object
            properties:
              name:
                type: string
                pattern: "^a"
              finalizers:
                type: array
                items:
                  type: string
                  pattern: "my-finalizer"
        anyOf:
        - properties:
            bar:
              type: integer
              minimum: 42
          required: ["bar"]
          description: "foo bar object"
`;
  await paste('CRD', crd);
  await paste('Object', 'apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: a\n');
  await page.getByRole('tab', { name: /Problems/ }).click();
  const p = 'spec.validation.openAPIV3Schema';
  const want = [
    ['crd.yaml:17:7', `${p}.type: Required value: must not be empty at the root`],
    ['crd.yaml:18:9', `${p}.properties[bar]: Required value: because it is defined in ${p}.anyOf[0].properties[bar]`],
    ['crd.yaml:19:11', `${p}.properties[foo].type: Required value: must not be empty for specified object fields`],
    ['crd.yaml:21:11', `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
    ['crd.yaml:35:15', `${p}.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural`],
    ['crd.yaml:38:11', `${p}.anyOf[0].description: Forbidden: must be empty to be structural`],
  ];
  const region = problems();
  await region.getByText('must not be empty at the root').first().waitFor();
  const text = await region.innerText();
  for (const [where, message] of want) {
    assert.ok(text.includes(where), `missing ${where} in\n${text}`);
    assert.ok(text.includes(message), `missing ${message} in\n${text}`);
  }
  const status = await statusLine().textContent();
  assert.match(status, /Rejected/);
  await screenshot('10-non-structural.png');

  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.deepEqual(studio.errors, []);
});

const celPanel = () => page.getByRole('region', { name: 'CEL rules' });
const activeLineOf = (label) => page.locator(`.cm-editor:has(.cm-content[aria-label="${label}"]) .cm-activeLine`);

test('CEL rules: the example rules, their results on the sample, and a rule edited until it fails', async () => {
  await page.getByRole('tab', { name: 'CEL rules' }).click();
  const cel = celPanel();
  await cel.getByText('3 rules · 0 compile errors · 0 failing on the sample').waitFor();
  assert.equal(await problems().isVisible(), false);
  const card = (n) => cel.locator('.rule-card').nth(n - 1);
  // Rule 2: `self.size() > 0` on cronSpec, passed on the sample at spec.cronSpec.
  assert.match(await card(2).locator('.rule-head').innerText(), /\.spec\.cronSpec\s+crd\.yaml:\d+:\d+/);
  assert.equal(await cel.getByRole('textbox', { name: 'Rule 2' }).inputValue(), 'self.size() > 0');
  assert.match(await card(2).locator('.samples').innerText(), /CronTab my-new-cron-object\s+create[\s\S]*passed\s+spec\.cronSpec\s+cost \d+/i);
  // Its estimated cost (the server's figure) against the per-rule limit.
  assert.match(await card(2).locator('.rule-head .cost').innerText(), /est\. cost \d+\s+<0\.1%/);
  assert.match(await card(2).locator('.cost-detail').innerText(), /\d+ per evaluation × cardinality 1/);
  assert.match(await cel.getByTestId('cel-total').innerText(), /CRD total\s+(<0\.1|\d+(\.\d)?)%/);
  // Rule 3 is a transition rule: skipped on create.
  assert.match(await card(3).innerText(), /transition rule/);
  assert.match(await card(3).innerText(), /a transition rule runs only when there is an old value/);
  await screenshot('11-cel.png');

  // Edit rule 2 in place until it fails on the sample.
  const rule2 = cel.getByRole('textbox', { name: 'Rule 2' });
  await rule2.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('self.size() > 20');
  await cel.getByText('failed rule: self.size() > 20').waitFor();
  assert.match(await card(2).innerText(), /spec\.cronSpec: Invalid value: "\* \* \* \* \*\/5": failed rule: self\.size\(\) > 20/);
  await cel.getByText('3 rules · 0 compile errors · 1 failing on the sample').waitFor();
  // Nothing typed is lost; the CRD editor shows the rewritten rule, still a plain scalar.
  assert.equal(await rule2.inputValue(), 'self.size() > 20');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Rule 2');
  assert.match(await editor('CRD').innerText(), /^ *- rule: self\.size\(\) > 20$/m);
  assert.match(await statusLine().textContent(), /^Rejected · /);
  await card(2).scrollIntoViewIfNeeded();
  await screenshot('12-cel-failing.png');

  // The value path jumps to the Object editor, the rule's place to the CRD editor.
  await card(2).getByRole('button', { name: 'spec.cronSpec' }).click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Object');
  assert.match(await activeLineOf('Object').textContent(), /cronSpec:/);
  await card(2).locator('.rule-head button.place').click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CRD');
  assert.match(await activeLineOf('CRD').textContent(), /rule: self\.size\(\) > 20/);

  // Kept across a reload (autosaved like any CRD edit).
  await page.waitForTimeout(300);
  await openPage();
  await page.getByRole('tab', { name: 'CEL rules' }).click();
  await celPanel().getByText('failed rule: self.size() > 20').waitFor();
  assert.deepEqual(studio.errors, []);
});

test('CEL rules: a transition rule runs on update and fails when the value changes', async () => {
  const cel = celPanel();
  await page.getByRole('button', { name: 'Copy from Object' }).click();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.includes('on update'));
  const transition = cel.locator('.rule-card', { hasText: 'transition rule' });
  await transition.locator('.verdict.passed').waitFor();
  assert.match(await transition.innerText(), /update/);

  await paste('Object', CRONTAB.replace('my-awesome-cron-image', 'another-image'));
  await transition.locator('.verdict.failed').waitFor();
  assert.match(await transition.locator('.samples').innerText(), /failed[\s\S]*spec\.image: Invalid value: "another-image": image is immutable/i);
  await transition.scrollIntoViewIfNeeded();
  await screenshot('13-cel-update.png');

  await page.getByRole('button', { name: 'Clear' }).click();
  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  await cel.getByText('3 rules · 0 compile errors · 0 failing on the sample').waitFor();
  assert.equal(await cel.getByRole('textbox', { name: 'Rule 2' }).inputValue(), 'self.size() > 0');
  assert.deepEqual(studio.errors, []);
});

// ---- kubectl get and Conversion tabs (get_view.rs, conversion_view.rs) ----

// A rule iterating an unbounded list of unbounded strings: far over the per-rule limit.
const COSTLY = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: gadgets
    singular: gadget
    kind: Gadget
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
              count:
                type: integer
                x-kubernetes-validations:
                - rule: self >= 0
              names:
                type: array
                items:
                  type: string
                x-kubernetes-validations:
                - rule: "self.all(x, x.matches('^a+$'))"
                  message: every name is made of a
`;
const GADGET = 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  count: 2\n  names: [aa, aaa]\n';

test('CEL cost: an over-budget rule shows the server error, its cost against the limit and the CRD total', async () => {
  await paste('CRD', COSTLY);
  await paste('Object', GADGET);
  await page.getByRole('tab', { name: 'CEL rules' }).click();
  const cel = celPanel();
  await cel.getByText('2 rules · 0 compile errors · 0 failing on the sample · 1 over the cost limit').waitFor();
  assert.match(await statusLine().textContent(), /^Rejected · CRD gadgets\.example\.com rejected/);
  const costly = cel.locator('.rule-card', { hasText: '.spec.names' });
  // The server's error, as Problems lists it, on the rule's card; the card is red.
  const budget = 'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
  await costly.getByText(budget).waitFor();
  assert.match(await costly.getAttribute('class'), /\bover\b/);
  assert.match(await costly.locator('.rule-head .cost').innerText(), /est\. cost [\d,]+\s+factor of more than 100x/);
  assert.equal(await costly.locator('.bar.over').count(), 1);
  assert.match(await costly.locator('.cost-detail').innerText(), /[\d,]+ per evaluation × cardinality 1/);
  // It compiles: the error is not a compile error.
  assert.match(await costly.locator('.compile.ok').innerText(), /compiles/);
  // The CRD total is over its limit too.
  assert.match(await cel.getByTestId('cel-total').innerText(), /CRD total\s+factor of more than 100x/);
  assert.match(await cel.locator('.cost-banner').innerText(), /Over the limit for a schema: .*100,000,000/);
  await costly.locator('.rule-head').scrollIntoViewIfNeeded();
  await screenshot('14-cel-cost-over.png');

  // Problems has the same error at the rule's line; the card's error jumps there.
  assert.ok((await page.locator('#panel-problems').textContent()).includes(budget));
  await costly.getByRole('button', { name: 'rule: Forbidden' }).first().click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CRD');
  assert.match(await activeLineOf('CRD').textContent(), /rule: "self\.all\(x, x\.matches\('\^a\+\$'\)\)"/);

  // What drives the cost: the list and its strings, each with a link to its schema.
  const driver = (path) => costly.locator('.drivers li').filter({ has: page.locator('code.vpath', { hasText: path }) });
  const list = driver(/^\.spec\.names$/);
  assert.match(await list.innerText(), /\(unbounded list, assumed 1,048,575 items; read by the rule\)/);
  assert.match(await driver(/^\.spec\.names\[\*\]$/).innerText(), /\(unbounded string, assumed size [\d,]+; read by the rule\)/);
  await list.getByRole('button', { name: 'show in CRD' }).click();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CRD');
  assert.match(await activeLineOf('CRD').textContent(), /^\s*names:$/);

  // Sorted by cost, the expensive rule comes first.
  const vpaths = async () => (await cel.locator('.rule-card .rule-head > .vpath').allInnerTexts());
  assert.deepEqual(await vpaths(), ['.spec.count', '.spec.names']);
  await cel.getByRole('button', { name: 'Sort by cost' }).click();
  assert.equal(await cel.getByRole('button', { name: 'Sort by cost' }).getAttribute('aria-pressed'), 'true');
  assert.deepEqual(await vpaths(), ['.spec.names', '.spec.count']);
  await cel.getByRole('button', { name: 'Sort by cost' }).click();
  assert.deepEqual(await vpaths(), ['.spec.count', '.spec.names']);

  // The suggested bounds, applied in one click, make the CRD acceptable; the rule then
  // costs what the suggestion said.
  const suggestion = costly.locator('.cost-explain .suggestion');
  const promised = (await suggestion.innerText()).match(/→ cost ([\d,]+) \(([\d.<]+%)\)/);
  assert.ok(promised, await suggestion.innerText());
  await suggestion.scrollIntoViewIfNeeded();
  await screenshot('15-cel-cost-explained.png');
  await suggestion.getByRole('button', { name: 'Apply' }).click();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  assert.match(await statusLine().textContent(), /^Accepted · CRD gadgets\.example\.com accepted/);
  await cel.getByText('2 rules · 0 compile errors · 0 failing on the sample', { exact: true }).waitFor();
  const fixed = cel.locator('.rule-card', { hasText: '.spec.names' });
  assert.equal(await fixed.locator('.rule-head .cost').innerText().then((t) => t.replace(/\s+/g, ' ')), `est. cost ${promised[1]} ${promised[2]}`);
  assert.equal(await fixed.locator('.rule-error').count(), 0);
  assert.equal(await cel.locator('.cost-banner').count(), 0);
  // The bounds are in the CRD text (autosaved like any edit, shortly after it), at the nodes
  // they bound.
  await page.waitForFunction(() => (localStorage.getItem('crd-studio.crd') ?? '').includes('maxItems'));
  const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('crd-studio.crd')));
  assert.match(saved, /names:\n +maxItems: \d+\n +type: array\n +items:\n +maxLength: \d+\n +type: string\n/);
  await fixed.locator('.rule-head').scrollIntoViewIfNeeded();
  await screenshot('16-cel-cost-fixed.png');
  assert.deepEqual(studio.errors, []);
});

const getPanel = () => page.getByRole('region', { name: 'kubectl get' });
const conversionPanel = () => page.getByRole('region', { name: 'Conversion' });

const WIDGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig:
        url: https://convert.example.com/convert
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
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              color: {type: string}
`;
const WIDGET = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n  color: red\n';

test('kubectl get: --field-selector lists the matching samples, or the server error', async () => {
  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  await page.getByRole('tab', { name: /kubectl get/ }).click();
  const panel = getPanel();
  await panel.getByRole('list', { name: 'Versions' }).getByText('preferred').waitFor();
  const input = panel.getByRole('textbox', { name: 'Field selector' });
  await input.fill('metadata.name=nope');
  await panel.locator('.selector-row', { hasText: 'filtered out' }).waitFor();
  await input.fill('metadata.name=my-new-cron-object');
  await panel.locator('.selector-row', { hasText: 'listed' }).waitFor();
  await input.fill('spec.image=x');
  const error = panel.locator('.selector-error');
  await error.waitFor();
  assert.match(await error.textContent(), /field label not supported: spec\.image/);
  await screenshot('20-get-selector.png');
  await input.fill('');
  assert.deepEqual(studio.errors, []);
});

test('kubectl get: the printer-column table, normal and -o wide', async () => {
  await resetExample();
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  await page.getByRole('tab', { name: /kubectl get/ }).click();
  const panel = getPanel();
  const out = panel.getByLabel('kubectl get output');
  await out.waitFor({ timeout: 3000 });
  assert.match(await out.textContent(), /^NAME {17}SPEC {10}AGE\nmy-new-cron-object {3}\* \* \* \* \*\/5 {3}\d+s$/);
  await panel.getByRole('button', { name: '-o wide' }).click();
  await page.waitForFunction(() => document.querySelector('[aria-label="kubectl get output"]')?.textContent.includes('IMAGE'));
  assert.match(await out.textContent(), /^NAME {17}SPEC {10}IMAGE {19}AGE\nmy-new-cron-object {3}\* \* \* \* \*\/5 {3}my-awesome-cron-image {3}\d+s$/);
  await screenshot('21-get-wide.png');
  await panel.getByRole('button', { name: 'normal' }).click().catch(() => {});
  assert.deepEqual(studio.errors, []);
});

test('Conversion: a webhook response that changes metadata.name is rejected with the server message', async () => {
  await paste('CRD', WIDGETS);
  await paste('Object', WIDGET);
  await page.waitForFunction(() => document.querySelector('[role="status"]')?.textContent.startsWith('Accepted'));
  await page.getByRole('tab', { name: /Conversion/ }).click();
  const panel = conversionPanel();
  const request = panel.getByLabel('ConversionReview request');
  await request.waitFor();
  const body = await request.textContent();
  assert.match(body, /"desiredAPIVersion": "example.com\/v2"/);
  assert.match(body, /"kind": "ConversionReview"/);
  await panel.getByRole('button', { name: 'Insert a template' }).click();
  await panel.getByText('The server accepts the response.').waitFor();
  const response = panel.getByRole('textbox', { name: 'Webhook response' });
  const text = await response.inputValue();
  assert.match(text, /"name": "w1"/);
  await response.fill(text.replace('"name": "w1"', '"name": "w2"'));
  const issue = panel.locator('.check-issues .problem').first();
  await issue.waitFor();
  const message = await issue.textContent();
  assert.match(message, /conversion webhook for .*must have the same name: w1 != w2/, message);
  await issue.scrollIntoViewIfNeeded();
  await screenshot('22-webhook-rejected.png');
  assert.deepEqual(studio.errors, []);
});

test('Conversion: a mapping that drops a field fails the round trip at that field', async () => {
  await page.getByRole('tab', { name: /Conversion/ }).click();
  const panel = conversionPanel();
  const mappings = panel.getByRole('textbox', { name: 'Conversion mappings' });
  await mappings.fill(`from: v1
to: v2
rules:
  - move: {from: .spec.size, to: .spec.replicas}
  - drop: .spec.color
---
from: v2
to: v1
rules:
  - move: {from: .spec.replicas, to: .spec.size}
`);
  const trip = panel.locator('.round-trip').first();
  await trip.waitFor();
  const text = await trip.textContent();
  assert.match(text, /lossy/, text);
  assert.match(text, /color/, text);
  assert.match(text, /"red"/, text);
  assert.match(text, /\(missing\)/, text);
  await trip.scrollIntoViewIfNeeded();
  await screenshot('23-round-trip.png');
  // The texts survive a reload.
  await page.reload();
  await page.getByRole('tab', { name: /Conversion/ }).click();
  assert.match(await conversionPanel().getByRole('textbox', { name: 'Conversion mappings' }).inputValue(), /drop: \.spec\.color/);
  await resetExample();
  assert.deepEqual(studio.errors, []);
});
