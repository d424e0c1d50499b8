// End-to-end tests of the Tests tab (issue 27, item 3): "Save as test case" makes a case of the
// Object with its verdict, which passes; each case runs again while the CRD is typed (a case
// flips to failing with its failed expectation, expected against got); cases are renamed and
// deleted, travel in share links and the autosave, download as a .crdtest.yaml and open again.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test tests_tab.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BASE_URL, editor as editorIn, screenshot, useStudio } from './harness.mjs';

const studio = useStudio('tests-tab', { wait: 'Object', clipboard: true });
const { editor, paste, until } = studio;
let page;
before(async () => {
  page = await studio.ready;
});
const panel = () => page.getByRole('region', { name: 'Tests' });
const cases = () => panel().getByTestId('test-case');
/** The page at 1400 px and the Tests panel at 360 px, light and dark. */
async function shoot(name) {
  await page.mouse.move(0, 0);
  await studio.screenshot(name, { themes: ['light', 'dark'], widths: [1400], settle: 200 });
  await screenshot(panel(), `${name}-panel`, { page, themes: ['light', 'dark'], widths: [360], settle: 200 });
}
/** Waits until the summary line reads `text`. */
const summaryIs = (text) =>
  until((t) => document.querySelector('[data-testid="tests-summary"]')?.textContent === t, text, `summary "${text}"`);

const object = (replicas) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
spec:
  cronSpec: "* * * * */5"
  image: my-cron-image
  replicas: ${replicas}
`;

test('the Tests tab starts empty and says what to do', async () => {
  await page.getByRole('tab', { name: /Tests/ }).click();
  await panel().waitFor();
  assert.match(await panel().textContent(), /No test cases yet/);
  assert.equal(await panel().getByRole('button', { name: 'Download tests' }).isDisabled(), true);
});

test('"Save as test case" makes a passing case of the rejected and of the accepted object', async () => {
  await paste('Object', object(12));
  await studio.statusIs('Rejected');
  await panel().getByRole('button', { name: 'Save as test case' }).click();
  await summaryIs('All 1 passed');
  await paste('Object', object(3));
  await studio.statusIs('Accepted');
  await panel().getByRole('button', { name: 'Save as test case' }).click();
  await summaryIs('All 2 passed');
  assert.equal(await cases().count(), 2);
  assert.equal(await cases().nth(0).getByRole('textbox').inputValue(), 'case 1 (rejected)');
  assert.equal(await cases().nth(1).getByRole('textbox').inputValue(), 'case 2 (accepted)');
  assert.match(await page.locator('#tab-tests .count').getAttribute('aria-label'), /2 cases, all pass/);
});

test('a case flips while the CRD is typed, showing the failed expectation', async () => {
  await summaryIs('All 2 passed');
  // Keystrokes in the rule `self.replicas <= 10`: 10 becomes 1 (the accepted case fails),
  // then 100 (the rejected one fails).
  await editor('CRD').locator('.cm-line', { hasText: 'self.replicas <= 10' }).click();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Backspace');
  await summaryIs('1 failed, 1 passed');
  assert.match(await cases().nth(1).textContent(), /fails/);
  await page.keyboard.type('00');
  await summaryIs('1 failed, 1 passed');
  const failing = cases().nth(0);
  await until(() => document.querySelectorAll('[data-testid="test-case"]')[0]?.classList.contains('fail'), null, 'the first case failing');
  const text = await failing.locator('.case-failures').textContent();
  assert.match(text, /expect\.verdict/);
  assert.match(text, /expected\s*rejected/);
  assert.match(text, /got\s*accepted/);
  assert.match(text, /line \d+/);
  assert.match(await page.locator('#tab-tests .count').getAttribute('aria-label'), /1 failing/);
  await shoot('tests-tab-failing');
  // Back to 10.
  await editor('CRD').locator('.cm-line', { hasText: 'self.replicas <= 100' }).click();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Backspace');
  await summaryIs('All 2 passed');
});

test('cases are renamed and deleted, with the keyboard', async () => {
  const name = cases().nth(0).getByRole('textbox', { name: 'Name of case 1' });
  await name.fill('too many replicas');
  await name.press('Tab');
  await until(() => JSON.parse(localStorage.getItem('crd-studio.tests') ?? '[]')[0]?.name === 'too many replicas', null, 'the renamed case saved');
  const del = cases().nth(1).getByRole('button', { name: 'Delete case case 2 (accepted)' });
  await del.focus();
  await page.keyboard.press('Enter');
  await summaryIs('All 1 passed');
  assert.equal(await cases().count(), 1);
});

test('the autosave keeps the cases after a reload', async () => {
  await page.reload();
  await editor('Object').waitFor();
  await page.getByRole('tab', { name: /Tests/ }).click();
  await summaryIs('All 1 passed');
  assert.equal(await cases().nth(0).getByRole('textbox').inputValue(), 'too many replicas');
});

test('a share link carries the cases', async () => {
  await page.getByRole('button', { name: 'Share' }).click();
  await until(() => location.hash.startsWith('#s1.'), null, 'share link');
  const link = await page.evaluate(() => location.href);
  const other = await studio.context.newPage();
  await other.goto(BASE_URL);
  await other.evaluate(() => localStorage.clear());
  await other.goto('about:blank');
  await other.goto(link);
  await editorIn(other, 'Object').waitFor();
  await other.getByRole('tab', { name: /Tests/ }).click();
  const otherPanel = other.getByRole('region', { name: 'Tests' });
  await otherPanel.getByTestId('test-case').first().waitFor();
  assert.equal(await otherPanel.getByTestId('test-case').first().getByRole('textbox').inputValue(), 'too many replicas');
  for (let i = 0; i < 100 && (await otherPanel.getByTestId('tests-summary').textContent()) !== 'All 1 passed'; i++) {
    await other.waitForTimeout(100);
  }
  assert.equal(await otherPanel.getByTestId('tests-summary').textContent(), 'All 1 passed');
  await other.close();
});

test('"Download tests" writes a .crdtest.yaml that "Open tests…" loads back', async () => {
  await page.getByRole('tab', { name: /Tests/ }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel().getByRole('button', { name: 'Download tests' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'crontabs.stable.example.com.crdtest.yaml');
  const path = await download.path();
  const text = readFileSync(path, 'utf8');
  assert.match(text, /^cases:$/m);
  assert.match(text, /- name: too many replicas/);
  assert.match(text, /verdict: rejected/);
  assert.match(text, /^crd:$/m);
  assert.match(text, /# The name is <plural>\.<group>\./, 'the CRD as typed, comments kept');
  // Open it over other work: the cases come back with its CRD.
  await panel().getByRole('button', { name: 'Delete case too many replicas' }).click();
  await summaryIs('');
  await page.locator('#panel-tests input[type="file"]').setInputFiles({
    name: 'crontab.crdtest.yaml',
    mimeType: 'application/yaml',
    buffer: Buffer.from(text),
  });
  const dialog = page.getByRole('dialog', { name: /Open the tests of crontab\.crdtest\.yaml/ });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Open tests' }).click();
  await summaryIs('All 1 passed');
  assert.equal(await cases().nth(0).getByRole('textbox').inputValue(), 'too many replicas');
  await shoot('tests-tab');
  assert.deepEqual(studio.errors, []);
});
