// End-to-end test of issue 26, item 3: under the verdict, the CRD across Kubernetes versions
// in one line, computed in the worker after the CRD's reply. Typing a rule that uses a CEL
// function newer than the oldest modelled version changes the line.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test versions.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { useStudio } from './harness.mjs';

const studio = useStudio('versions', { wait: 'CRD' });
const { editor, paste, until, statusIs } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
              a: {type: string, maxLength: 40}
            x-kubernetes-validations:
            - rule: "self.a.size() > 0"`;

const OBJECT = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  a: 10.0.0.1
`;

const versionsText = () => page.evaluate(() => {
  const p = document.querySelector('.topbar .versions');
  return p && !p.hidden ? p.querySelector('[aria-hidden="true"]')?.textContent ?? '' : '';
});

test('the versions line under the verdict changes when a rule uses a newer CEL function', async () => {
  await paste('Object', OBJECT);
  await paste('CRD', CRD);
  await statusIs('Accepted');
  await until(() => document.querySelector('.topbar .versions:not([hidden])')?.textContent.includes('accepted by 1.30–1.37'), null, 'the versions line');
  assert.equal(await versionsText(), 'Kubernetes versions: accepted by 1.30–1.37');

  // Type ` && isIP(self.a)` into the rule, before its closing quote.
  await editor('CRD').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(' && isIP(self.a)');
  await statusIs('Accepted');
  await until(() => document.querySelector('.topbar .versions:not([hidden])')?.textContent.includes('isIP needs 1.31'), null, 'the changed versions line');
  assert.equal(await versionsText(), 'Kubernetes versions: accepted by 1.31–1.37; 1.30 rejects: isIP needs 1.31');
  // A screen reader hears the range in words.
  const spoken = await page.evaluate(() => document.querySelector('.topbar .versions .visually-hidden')?.textContent);
  assert.equal(spoken, 'Kubernetes versions: accepted by 1.31 to 1.37; 1.30 rejects: isIP needs 1.31');
  await page.setViewportSize({ width: 1500, height: 900 });
  await studio.screenshot('versions-wide.png');
  await page.setViewportSize({ width: 360, height: 800 });
  await studio.screenshot('versions-360.png');
  await page.setViewportSize({ width: 1280, height: 800 });

  // An object keystroke keeps the line (the span belongs to the CRD).
  await paste('Object', OBJECT.replace('10.0.0.1', '10.0.0.2'));
  await statusIs('Accepted');
  assert.match(await versionsText(), /isIP needs 1\.31/);
  assert.deepEqual(studio.errors, []);
});
