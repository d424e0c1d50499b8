// End-to-end tests of issue 14, item 7 ("smaller things"), each as the user sees it:
// a. a field selector's filtered-out objects are not in the kubectl get table, kubectl's
//    "No resources found ..." when none is left, and the equivalent command line;
// b. a rejected webhook response fails the request: the server's error, no resulting object;
// c. Copy buttons say "Copied" through a live region, then return to "Copy";
// d. the studio's default ConversionReview uid is the engine's, the one the CLI uses;
// e. an object without a row in kubectl get says what is missing, at the object;
// f. authored conversion: a typo in the reverse mapping is blamed on that rule, and a
//    mapping target unknown to the target schema is a finding at the mapping;
// g. a cost no bound can lower names the expensive call.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test small.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { example, useStudio } from './harness.mjs';

const studio = useStudio('small', { wait: 'CRD', clipboard: true });
const { editor, paste, until, statusIs } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
const screenshot = (name) => studio.screenshot(name, { fullPage: true });

const CRONTAB_CRD = example('crontab', 'crd.yaml');
const CRONTAB = example('crontab', 'object.yaml');
const TWO = `${CRONTAB.trimEnd()}\n---\n${CRONTAB.replace(/my-new-cron-object/g, 'other').trimEnd()}\n`;

const getPanel = () => page.getByRole('region', { name: 'kubectl get' });
const conversionPanel = () => page.getByRole('region', { name: 'Conversion' });
const output = () => getPanel().getByLabel('kubectl get output');
const outputText = () => page.evaluate(() => document.querySelector('[aria-label="kubectl get output"]')?.textContent ?? '');
const commandText = () => page.evaluate(() => document.querySelector('[aria-label="Command line"]')?.textContent ?? '');

test('a. filtered-out objects leave the table; none left says "No resources found in default namespace."', async () => {
  await paste('CRD', CRONTAB_CRD);
  await paste('Object', TWO);
  await statusIs('Accepted');
  await page.getByRole('tab', { name: /kubectl get/ }).click();
  await output().waitFor();
  assert.match(await outputText(), /my-new-cron-object/);
  assert.match(await outputText(), /\nother /);
  assert.equal(await commandText(), '$ kubectl get -f object.yaml');

  const input = getPanel().getByRole('textbox', { name: 'Field selector' });
  await input.fill('metadata.name=other');
  await until(() => document.querySelector('[aria-label="Command line"]')?.textContent.includes('--field-selector'), null, 'the command line');
  assert.equal(await commandText(), '$ kubectl get crontabs.stable.example.com --field-selector metadata.name=other');
  const table = await outputText();
  assert.match(table, /^NAME +SPEC +AGE\nother +/);
  assert.doesNotMatch(table, /my-new-cron-object/, 'the filtered-out object is not in the table');
  // The explanation still names the filtered-out object.
  await getPanel().locator('.selector-row', { hasText: 'filtered out' }).waitFor();

  await input.fill('metadata.name=nope');
  await until(() => document.querySelector('[aria-label="kubectl get output"]')?.textContent.startsWith('No resources'), null, 'No resources found');
  assert.equal(await outputText(), 'No resources found in default namespace.');

  await getPanel().getByRole('button', { name: '-o wide' }).click();
  await until(() => document.querySelector('[aria-label="Command line"]')?.textContent.endsWith('-o wide'), null, '-o wide');
  assert.equal(await commandText(), '$ kubectl get crontabs.stable.example.com --field-selector metadata.name=nope -o wide');
  await input.fill('metadata.name=other');
  await until(() => document.querySelector('[aria-label="kubectl get output"]')?.textContent.includes('IMAGE'), null, 'the wide table');
  assert.doesNotMatch(await outputText(), /my-new-cron-object/);
  await screenshot('small-a-selector.png');
  await getPanel().getByRole('button', { name: 'normal' }).click();
  assert.deepEqual(studio.errors, []);
});

test('c. a Copy button says "Copied" in a live region, copies, and returns to "Copy"', async () => {
  const panel = getPanel();
  const button = panel.locator('.command-line button.copy');
  assert.equal(await button.textContent(), 'Copy');
  const live = panel.locator('.command-line [aria-live="polite"]');
  assert.equal(await live.textContent(), '');
  await button.click();
  await until(() => document.querySelector('.command-line button.copy')?.textContent === 'Copied', null, 'Copied');
  assert.equal(await live.textContent(), 'Copied');
  assert.equal(
    await page.evaluate(() => navigator.clipboard.readText()),
    'kubectl get crontabs.stable.example.com --field-selector metadata.name=other',
  );
  await screenshot('small-c-copied.png');
  const t0 = Date.now();
  await until(() => document.querySelector('.command-line button.copy')?.textContent === 'Copy', null, 'back to Copy', 5_000);
  const took = Date.now() - t0;
  assert.ok(took > 1_000 && took < 3_500, `returned after ${took} ms`);
  assert.equal(await live.textContent(), '');
  await getPanel().getByRole('textbox', { name: 'Field selector' }).fill('');
  assert.deepEqual(studio.errors, []);
});

test('e. an object without a row says what is missing, at the object (not `no table for version ""`)', async () => {
  await paste('Object', 'kind: CronTab\nmetadata:\n  name: a\n');
  await statusIs('Rejected');
  const missing = getPanel().getByRole('list', { name: 'Objects not printed' });
  await missing.waitFor();
  const text = await missing.textContent();
  assert.match(text, /the object has no apiVersion; this CRD serves stable\.example\.com\/v1/, text);
  assert.match(text, /object\.yaml:1:1/, text);
  assert.doesNotMatch(text, /no table for version/, text);
  await screenshot('small-e-missing.png');
  assert.deepEqual(studio.errors, []);
});

test('d and b. the request carries the engine uid; a rejected response fails the request with no object', async () => {
  await paste('CRD', example('webhook-conversion', 'crd.yaml'));
  await paste('Object', example('webhook-conversion', 'object.yaml'));
  await statusIs('Accepted');
  await page.getByRole('tab', { name: /Conversion/ }).click();
  const panel = conversionPanel();
  const request = panel.getByLabel('ConversionReview request');
  await request.waitFor();
  // The uid `crd-studio convert` prints for the same files (crates/cli/tests/convert.rs).
  assert.match(await request.textContent(), /"uid": "9aec6431-9e20-8826-b563-96703cb782a5"/);

  // The example's response (written with that uid) is accepted.
  const response = panel.getByRole('textbox', { name: 'Webhook response' });
  await response.fill(example('webhook-conversion', 'webhook-response.yaml'));
  await panel.getByText('The server accepts the response.').waitFor();
  await panel.locator('.conv-card h4', { hasText: 'the server ends up with' }).first().waitFor();

  // Renamed: rejected. The request fails; no object is shown as the result.
  await response.fill(example('webhook-conversion', 'webhook-response.yaml').replace('name: eu', 'name: us'));
  const fails = panel.locator('.request-fails');
  await fails.waitFor();
  const text = await fails.textContent();
  assert.match(text, /The request fails/, text);
  assert.match(text, /conversion webhook for repo\.example\.com\/v1, Kind=Mirror returned invalid object: must have the same name: eu != us/, text);
  assert.equal(await panel.locator('.conv-card h4', { hasText: 'the server ends up with' }).count(), 0);
  await fails.scrollIntoViewIfNeeded();
  await screenshot('small-b-request-fails.png');

  // The request's Copy button gives feedback too.
  const copy = panel.locator('.code-wrap button.copy');
  await copy.click();
  await until(() => document.querySelector('.code-wrap button.copy')?.textContent === 'Copied', null, 'Copied');
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /"kind": "ConversionReview"/);
  await response.fill('');
  assert.deepEqual(studio.errors, []);
});

const CRONTABS_TWO_VERSIONS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig: {url: "https://example.com/convert"}
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
              cronSpec: {type: string}
              size: {type: integer}
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
              schedule: {type: string}
              replicas: {type: integer}
`;
const CRONTAB_V1 = "apiVersion: example.com/v1\nkind: CronTab\nmetadata: {name: a}\nspec: {cronSpec: '* * * * *', size: 3}\n";
const mappingsWith = (reverseRule) => `from: v1
to: v2
rules:
  - move: {from: .spec.cronSpec, to: .spec.schedule}
  - move: {from: .spec.size, to: .spec.replicas}
---
from: v2
to: v1
rules:
  - move: {from: .spec.schedule, to: .spec.cronSpec}
  - ${reverseRule}
`;

/** The mapping issues' rows as "severity place message". */
const mappingIssues = () =>
  page.evaluate(() =>
    [...document.querySelectorAll('.mapping-issues .problem')].map((li) =>
      [li.querySelector('.sev')?.textContent, li.querySelector('.place')?.textContent, li.querySelector('.message')?.textContent].join(' '),
    ),
  );

test('f. a typo in the reverse mapping is blamed on that rule; unknown targets are findings at the mapping', async () => {
  await paste('CRD', CRONTABS_TWO_VERSIONS);
  await paste('Object', CRONTAB_V1);
  await statusIs('Accepted');
  await page.getByRole('tab', { name: /Conversion/ }).click();
  const mappings = conversionPanel().getByRole('textbox', { name: 'Conversion mappings' });
  // A typo in the reverse rule's source (line 11).
  await mappings.fill(mappingsWith('move: {from: .spec.replicsa, to: .spec.size}'));
  const roundTrip = await until(
    () => [...document.querySelectorAll('.mapping-issues .problem')].map((li) => li.textContent).find((t) => t.includes('round trip')),
    null,
    'the round-trip finding',
  );
  assert.match(roundTrip, /changes \.spec\.size: 3 → \(absent\)/, roundTrip);
  let rows = await mappingIssues();
  assert.ok(rows.some((r) => /^warning 11:\d+ round trip v1 → v2 → v1/.test(r)), rows.join('\n'));
  assert.ok(
    rows.some((r) => r.startsWith('warning 11:') && r.includes('source field .spec.replicsa is not in the schema of v2')),
    rows.join('\n'),
  );
  // A typo in the reverse rule's target: blamed on it too, and an error naming the field and
  // the version whose schema lacks it.
  await mappings.fill(mappingsWith('move: {from: .spec.replicas, to: .spec.sise}'));
  await until(
    () => [...document.querySelectorAll('.mapping-issues .problem')].some((li) => li.textContent.includes('.spec.sise')),
    null,
    'the unknown target',
  );
  rows = await mappingIssues();
  assert.ok(
    rows.some((r) => r.startsWith('error 11:') && r.includes('target field .spec.sise is not in the schema of v1')),
    rows.join('\n'),
  );
  assert.ok(rows.some((r) => /^warning 11:\d+ round trip v1 → v2 → v1/.test(r)), rows.join('\n'));
  await conversionPanel().locator('.mapping-issues').scrollIntoViewIfNeeded();
  await screenshot('small-f-mappings.png');
  await mappings.fill('');
  assert.deepEqual(studio.errors, []);
});

const STRING_MESSAGE = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: has(self.spec)
          messageExpression: "'count is ' + string(self.spec.count)"
        properties:
          spec:
            type: object
            properties:
              count: {type: integer}
`;

test('g. a cost no bound can lower names the expensive call and what to do', async () => {
  await paste('CRD', STRING_MESSAGE);
  await paste('Object', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {count: 1}\n');
  await statusIs('Rejected');
  await page.getByRole('tab', { name: /CEL/ }).click();
  const note = await until(
    () => [...document.querySelectorAll('.cost-explain .muted')].map((n) => n.textContent).find((t) => t.includes('bound lowers this cost')),
    null,
    'the cost note',
  );
  assert.match(note, /the expensive call is the \+ operator at 1:13 of the expression, about 100% of its estimated cost/, note);
  assert.match(note, /string\(…\) at 1:15/, note);
  assert.match(note, /use a fixed `message` instead/, note);
  await page.locator('.cost-explain').first().scrollIntoViewIfNeeded();
  await screenshot('small-g-cost.png');
  assert.deepEqual(studio.errors, []);
});

test('the new parts fit a 360 px wide screen', async () => {
  // The texts are typed at the usual width (the editors' own small-screen layout is item 5's).
  await paste('CRD', CRONTAB_CRD);
  await paste('Object', TWO);
  await statusIs('Accepted');
  await page.setViewportSize({ width: 360, height: 800 });
  await page.getByRole('tab', { name: /kubectl get/ }).click();
  await getPanel().getByRole('textbox', { name: 'Field selector' }).fill('metadata.name=other');
  await until(() => document.querySelector('[aria-label="Command line"]')?.textContent.includes('--field-selector'), null, 'the command line');
  const line = getPanel().locator('.command-line');
  await line.scrollIntoViewIfNeeded();
  const [lineBox, panelBox] = [await line.boundingBox(), await getPanel().boundingBox()];
  assert.ok(lineBox.x + lineBox.width <= panelBox.x + panelBox.width + 1, `${JSON.stringify(lineBox)} in ${JSON.stringify(panelBox)}`);
  await screenshot('small-360-get.png');
  await getPanel().getByRole('textbox', { name: 'Field selector' }).fill('');
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.deepEqual(studio.errors, []);
});

test('c. "Copy from Object" says "Copied" too, then returns to its label', async () => {
  const button = page.locator('.copy-wrap button', { hasText: /Copy from Object|Copied/ });
  await button.click();
  await until(() => [...document.querySelectorAll('.copy-wrap button')].some((b) => b.textContent === 'Copied'), null, 'Copied');
  assert.equal(await editor('Old object').textContent(), await editor('Object').textContent());
  await until(() => [...document.querySelectorAll('.copy-wrap button')].some((b) => b.textContent === 'Copy from Object'), null, 'the label back', 5_000);
  await page.getByRole('button', { name: 'Clear' }).click();
  assert.deepEqual(studio.errors, []);
});
