// End-to-end tests of issue 15 (help while writing), parts 1, 4 and 5:
// 1. the "Kubernetes version" select: switching it changes a rule's verdict, and it is
//    saved and carried by share links;
// 4. the Explain tab: kubectl explain's text for the object's version, a field path, and
//    field names that descend, into metadata too (ObjectMeta's published descriptions);
// 5. "Generate sample": the sample is added as an object text the engine accepts, and
//    nothing typed is lost.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test help.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { useStudio } from './harness.mjs';

const studio = useStudio('help', { wait: 'CRD' });
const { editor, paste, until, statusIs } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
/** Full-page screenshots at 360 and 1280 px (`<name>-<width>.png`). */
const screenshot = (name) => studio.screenshot(name, { widths: [360, 1280], height: 900, fullPage: true });

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: A widget.
        type: object
        properties:
          spec:
            description: The desired state.
            type: object
            required: [address]
            x-kubernetes-validations:
            - rule: isIP(self.address)
            properties:
              address:
                description: An IP address.
                type: string
                maxLength: 45
              mode:
                type: string
                enum: [fast, slow]
`;
const OBJECT = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {address: 10.0.0.1}\n';

test('switching the Kubernetes version changes a rule\'s verdict, and is saved', async () => {
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
  const select = page.getByLabel('Kubernetes version');
  assert.equal(await select.inputValue(), '1.37');
  await statusIs('Accepted');
  await select.selectOption('1.30');
  await statusIs('Rejected');
  await until(() => document.body.textContent.includes("undeclared reference to 'isIP'"), null, 'the compile error');
  await screenshot('kubernetes-version');
  assert.equal(await page.evaluate(() => localStorage.getItem('crd-studio.kubernetes-version')), '"1.30"');
  await select.selectOption('1.31');
  await statusIs('Accepted');
  await select.selectOption('1.30');
  await statusIs('Rejected');
  // A reload keeps the choice.
  await page.reload();
  await editor('CRD').waitFor();
  assert.equal(await page.getByLabel('Kubernetes version').inputValue(), '1.30');
  await statusIs('Rejected');
  await page.getByLabel('Kubernetes version').selectOption('1.37');
  await statusIs('Accepted');
});

test('the Explain tab prints kubectl explain and descends by clicking a field', async () => {
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
  await statusIs('Accepted');
  await page.locator('#tab-explain').click();
  const pre = page.locator('#panel-explain pre.explain-text');
  await until(() => document.querySelector('#panel-explain pre.explain-text')?.textContent.startsWith('GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n'), null, 'the explain text');
  const text = await pre.textContent();
  assert.ok(text.includes('DESCRIPTION:\n    A widget.\n'), text);
  assert.ok(text.includes('  spec\t<Object>\n    The desired state.\n'), text);
  await page.locator('#panel-explain button.explain-field', { hasText: 'spec' }).click();
  await until(() => document.querySelector('#panel-explain pre.explain-text')?.textContent.includes('FIELD: spec <Object>'), null, 'the spec field');
  assert.equal(await page.getByLabel('Field path').inputValue(), 'spec');
  const spec = await pre.textContent();
  assert.ok(spec.includes('  address\t<string> -required-\n    An IP address.\n'), spec);
  assert.ok(spec.includes('  mode\t<string>\n  enum: fast, slow\n'), spec);
  await page.getByLabel('Field path').fill('spec.nope');
  await until(() => document.querySelector('#panel-explain .explain-error')?.textContent === 'error: field "nope" does not exist', null, 'the error');
  await page.getByLabel('Field path').fill('spec.mode');
  await until(() => document.querySelector('#panel-explain pre.explain-text')?.textContent.includes('FIELD: mode <string>\nENUM:\n    fast\n    slow\n'), null, 'the enum');
  assert.equal(await page.locator('#panel-explain .command').textContent(), 'kubectl explain widgets.spec.mode --api-version=example.com/v1');
  await screenshot('explain');
  await page.getByRole('button', { name: 'Up' }).click();
  assert.equal(await page.getByLabel('Field path').inputValue(), 'spec');
});

test('the Explain tab goes into metadata: ObjectMeta and its fields with the published descriptions', async () => {
  await paste('CRD', CRD);
  await paste('Object', OBJECT);
  await statusIs('Accepted');
  await page.locator('#tab-explain').click();
  await page.getByLabel('Field path').fill('');
  const text = () => document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '';
  await until(() => (document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '').includes('  metadata\t<ObjectMeta>\n'), null, 'the resource');
  await page.locator('#panel-explain button.explain-field', { hasText: /^metadata$/ }).click();
  await until(() => (document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '').includes('FIELD: metadata <ObjectMeta>'), null, 'the metadata field');
  assert.equal(await page.getByLabel('Field path').inputValue(), 'metadata');
  assert.equal(await page.locator('#panel-explain .explain-error').count(), 0);
  const meta = await page.evaluate(text);
  assert.ok(meta.includes('    ObjectMeta is metadata that all persisted resources must have, which\n    includes all objects users must create.\n'), meta);
  assert.ok(meta.includes('  ownerReferences\t<[]OwnerReference>\n    List of objects depended by this object.'), meta);
  await page.locator('#panel-explain button.explain-field', { hasText: /^labels$/ }).click();
  await until(() => (document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '').includes('FIELD: labels <map[string]string>'), null, 'the labels field');
  assert.equal(await page.getByLabel('Field path').inputValue(), 'metadata.labels');
  const labels = await page.evaluate(text);
  assert.ok(labels.includes('DESCRIPTION:\n    Map of string keys and values that can be used to organize and categorize\n    (scope and select) objects.'), labels);
  assert.equal(await page.locator('#panel-explain .command').textContent(), 'kubectl explain widgets.metadata.labels --api-version=example.com/v1');
  await screenshot('explain-metadata-labels');
  await page.getByRole('button', { name: 'Up' }).click();
  await until(() => (document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '').includes('FIELD: metadata <ObjectMeta>'), null, 'back to metadata');
  await page.locator('#panel-explain button.explain-field', { hasText: /^ownerReferences$/ }).click();
  await until(() => (document.querySelector('#panel-explain pre.explain-text')?.textContent ?? '').includes('FIELD: ownerReferences <[]OwnerReference>'), null, 'the ownerReferences field');
  const owners = await page.evaluate(text);
  assert.ok(owners.includes('  uid\t<string> -required-\n    UID of the referent.'), owners);
  await screenshot('explain-metadata-owners');
  await page.getByLabel('Field path').fill('metadata.nope');
  await until(() => document.querySelector('#panel-explain .explain-error')?.textContent === 'error: field "nope" does not exist', null, 'the error');
});

test('Generate sample adds an accepted object and keeps what was typed', async () => {
  await paste('CRD', CRD.replace('            x-kubernetes-validations:\n            - rule: isIP(self.address)\n', ''));
  await paste('Object', '');
  const button = page.getByRole('button', { name: 'Generate sample' });
  await until(() => !document.querySelector('button.generate-sample')?.disabled, null, 'the sample');
  await button.click();
  const objectText = () => page.evaluate(() => document.querySelector('.cm-content[aria-label="Object"]').innerText);
  await until(() => document.querySelector('.cm-content[aria-label="Object"]').innerText.includes('name: widget-sample'), null, 'the sample text');
  let t = await objectText();
  assert.ok(t.startsWith('apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: widget-sample\nspec:\n  address: '), t);
  assert.ok(!t.includes('---'), t);
  await statusIs('Accepted');
  // A second click keeps the first object and adds a document.
  await button.click();
  await until(() => document.querySelector('.cm-content[aria-label="Object"]').innerText.includes('---'), null, 'the second document');
  t = await objectText();
  assert.ok(t.includes('name: widget-sample\n') && t.includes('---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: widget-sample-2\n'), t);
  await statusIs('Accepted');
  await screenshot('sample');
  assert.deepEqual(studio.errors, []);
});
