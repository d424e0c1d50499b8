// End-to-end tests of keyboard use (issue 14, item 4): the editors are no keyboard trap, and
// the focused editor shows it.
//
//   BASE_URL=http://127.0.0.1:8765/ node --test keyboard.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { useStudio } from './harness.mjs';

const studio = useStudio('keys', { wait: 'CRD' });
const { editor } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

const inEditor = (label) =>
  page.evaluate((l) => document.activeElement === document.querySelector(`.cm-content[aria-label="${l}"]`), label);

test('Tab and Shift+Tab move the focus out of an editor and change no text', async () => {
  const crd = editor('CRD');
  await crd.click();
  await page.keyboard.press('Control+Home');
  assert.ok(await inEditor('CRD'));
  const before = await crd.locator('.cm-line').first().textContent();
  await page.keyboard.press('Tab');
  assert.ok(!(await inEditor('CRD')), 'Tab left the CRD editor');
  await page.keyboard.press('Shift+Tab');
  assert.ok(await inEditor('CRD'), 'Shift+Tab came back');
  await page.keyboard.press('Shift+Tab');
  assert.ok(!(await inEditor('CRD')), 'Shift+Tab left it backwards');
  assert.equal(await crd.locator('.cm-line').first().textContent(), before);
  assert.equal(before, 'apiVersion: apiextensions.k8s.io/v1');
});

test('Ctrl+] and Ctrl+[ indent and outdent; the focused editor has a visible outline', async () => {
  const object = editor('Object');
  await object.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Control+BracketRight');
  assert.equal(await object.locator('.cm-line').first().textContent(), '  apiVersion: stable.example.com/v1');
  await page.keyboard.press('Control+BracketLeft');
  assert.equal(await object.locator('.cm-line').first().textContent(), 'apiVersion: stable.example.com/v1');
  const outline = await page.evaluate(() => getComputedStyle(document.querySelector('.cm-editor.cm-focused')).outlineStyle);
  assert.notEqual(outline, 'none');
});
