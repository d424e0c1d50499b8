// End-to-end tests of what a newcomer tripped over (issue 30): completion inside CEL number
// and string literals, a share link lingering in the address bar, and a CEL function newer
// than the selected Kubernetes version.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test newcomer.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { editor as editorOf, example, launch, useStudio, verdict as verdictOf } from './harness.mjs';

const CRD = example('crontab', 'crd.yaml');
const studio = useStudio('newcomer', { wait: 'Object', clipboard: true });
const { editor, paste, until, verdict } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

/** Screenshots at 360 and 1280 px, light and dark. */
const shots = (name) => studio.screenshot(name, { widths: [1280, 360], themes: ['light', 'dark'], settle: 300 });

/** The lines of an editor (all rendered: the texts here are short). */
async function lines(label) {
  return page.evaluate((label) => [...document.querySelectorAll(`.cm-content[aria-label="${label}"] .cm-line`)]
    .map((l) => l.textContent), label);
}

/** Puts the cursor at the end of the CRD line holding `needle`. */
async function cursorAtEndOf(needle) {
  const line = editor('CRD').locator('.cm-line', { hasText: needle }).first();
  await line.scrollIntoViewIfNeeded();
  await line.click();
  await page.keyboard.press('End');
}

/** The CRD with one more rule on spec, `- rule: ` then `text`. */
const RULE = '                - rule: ';
const withRule = (text) => CRD.replace(
  '              x-kubernetes-validations:\n',
  `              x-kubernetes-validations:\n${RULE}${text}\n`,
);

/** A new rule on spec, typed as a user types (the list may open while typing). */
async function typeRule(text, delay = 60) {
  await paste('CRD', withRule('MARK'));
  await verdict({ what: 'the CRD' });
  await cursorAtEndOf(`${RULE.trim()} MARK`);
  for (let i = 0; i < 4; i++) await page.keyboard.press('Backspace');
  await page.keyboard.type(text, { delay });
}

test('typing a number in a CEL rule and Enter keeps the number (no completion inside literals)', async () => {
  for (const rule of ['self.replicas <= 10', 'self.replicas != 1123', "self.cronSpec != 'fo"]) {
    await typeRule(rule);
    await page.waitForTimeout(800);
    assert.equal(await page.locator('.cm-tooltip-autocomplete').count(), 0, `no list after ${rule}`);
    await page.keyboard.press('Enter');
    const after = await lines('CRD');
    assert.ok(after.includes(RULE + rule), `${rule}:\n${after.join('\n')}`);
  }
});

test('Enter accepts only a completion whose label starts with what was typed', async () => {
  // `rpl` fuzzily matches `replicas` (r…p…l): the list shows it, Enter does not take it.
  await typeRule('self.rpl');
  await page.keyboard.press('Control+Space');
  await until(() => document.querySelector('.cm-tooltip-autocomplete'), null, 'the list');
  await page.waitForTimeout(150);
  await page.keyboard.press('Enter');
  assert.ok((await lines('CRD')).includes(`${RULE}self.rpl`), 'the typed text stays');
  // A prefix the user can see: Enter takes it.
  await typeRule('self.rep');
  await page.keyboard.press('Control+Space');
  await until(() => document.querySelector('.cm-tooltip-autocomplete .cm-completionLabel')?.textContent === 'replicas', null, 'replicas first');
  await page.waitForTimeout(150);
  await page.keyboard.press('Enter');
  assert.ok((await lines('CRD')).includes(`${RULE}self.replicas`));
  await paste('CRD', CRD);
});

test('after Share, the next edit drops the link from the address bar and the banner', async () => {
  await paste('CRD', CRD);
  await verdict({ what: 'the example' });
  await page.getByRole('button', { name: 'Share' }).click();
  await page.locator('.share-message').filter({ hasText: 'Link copied' }).waitFor();
  assert.match(page.url(), /#s1\./);
  const entries = await page.evaluate(() => history.length);
  await shots('newcomer-share-banner');
  await editor('Object').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n# mine');
  await until(() => !location.hash, null, 'the fragment to go');
  assert.equal(await page.locator('.share-message').count(), 0, 'the banner goes at the next edit');
  assert.equal(await page.evaluate(() => history.length), entries, 'no history entry added');
  // A reload keeps the edit, not the shared state.
  await page.waitForFunction(() => (localStorage.getItem('crd-studio.object') ?? '').includes('# mine'));
  await page.reload();
  await editor('Object').waitFor();
  assert.match(await editor('Object').textContent(), /# mine/);
  assert.equal(await page.locator('.notice', { hasText: 'shared link' }).count(), 0);
  // Share, then an example: the link and the banner go too.
  await page.getByRole('button', { name: 'Share' }).click();
  await page.locator('.share-message').filter({ hasText: 'Link copied' }).waitFor();
  await page.getByRole('combobox', { name: 'Examples' }).selectOption({ index: 2 });
  const confirm = page.getByRole('button', { name: 'Load example' });
  if (await confirm.count()) await confirm.click();
  await until(() => !location.hash, null, 'the fragment to go after an example');
  assert.equal(await page.locator('.share-message').count(), 0);
});

test('a fresh browser opening a link is not offered a restore of nothing', async () => {
  await paste('Object', `${example('crontab', 'object.yaml')}# shared\n`);
  await page.getByRole('button', { name: 'Share' }).click();
  await page.locator('.share-message').filter({ hasText: 'Link copied' }).waitFor();
  const link = page.url();
  const fresh = await launch('crd-studio-e2e-newcomer-fresh-');
  try {
    const other = fresh.context.pages()[0] ?? (await fresh.context.newPage());
    await other.goto(link);
    await verdictOf(other.locator('.topbar'));
    await other.locator('.notice', { hasText: 'shared link' }).waitFor();
    assert.equal(await other.getByRole('button', { name: 'Restore my previous work' }).count(), 0);
    assert.match(await editorOf(other, 'Object').textContent(), /# shared/);
  } finally {
    await fresh.close();
  }
});

test('a CEL function newer than the selected version says from which version, with a switch', async () => {
  await page.getByRole('combobox', { name: 'Kubernetes version' }).selectOption('1.30');
  await paste('CRD', withRule("isIP(self.image)"));
  await verdict({ what: 'the CRD at 1.30' });
  await page.getByRole('tab', { name: /Problems/ }).click();
  const panel = page.locator('#panel-problems');
  await panel.getByText("undeclared reference to 'isIP'").first().waitFor();
  const note = panel.locator('.version-note');
  await note.waitFor();
  assert.match(await note.textContent(), /isIP is available from Kubernetes 1\.31 \(selected: 1\.30\)/);
  await shots('newcomer-version-note');
  await note.getByRole('button', { name: 'Switch to Kubernetes 1.31' }).click();
  await until(() => !document.querySelector('#panel-problems')?.textContent.includes("undeclared reference to 'isIP'"), null, 'the error to go');
  assert.equal(await page.getByRole('combobox', { name: 'Kubernetes version' }).inputValue(), '1.31');
  await paste('CRD', CRD);
});
