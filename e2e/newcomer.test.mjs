// End-to-end tests of what a newcomer tripped over (issue 30): completion inside CEL number
// and string literals, a share link lingering in the address bar, and a CEL function newer
// than the selected Kubernetes version.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test newcomer.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, editor as editorOf, example, launch, screenshot, useStudio, verdict as verdictOf } from './harness.mjs';

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

test('type: strin offers "Change to string" (item 4)', async () => {
  await page.getByRole('combobox', { name: 'Kubernetes version' }).selectOption('1.37');
  await paste('CRD', CRD.replace('                image:\n                  type: string\n', '                image:\n                  type: strin\n'));
  await page.getByRole('tab', { name: /Problems/ }).click();
  const fix = page.getByRole('button', { name: 'Fix: Change to string' });
  await fix.waitFor();
  await fix.click();
  await until(() => !document.querySelector('#panel-problems')?.textContent.includes('strin"'), null, 'the finding to go');
  assert.ok((await lines('CRD')).includes('                  type: string'));
});

test('an object error that only follows from a broken CRD says so and comes after its cause (item 4)', async () => {
  const broken = CRD.replace('                image:\n                  type: string\n', '                image:\n                  type: strin\n');
  const line = broken.split('\n').findIndex((l) => l === '                  type: strin') + 1;
  await paste('CRD', broken);
  await paste('Object', example('crontab', 'object.yaml'));
  await page.getByRole('tab', { name: /Problems/ }).click();
  const row = page.locator('#panel-problems li.problem.consequence');
  await row.first().waitFor();
  assert.equal(await row.count(), 1);
  // The server's text is unchanged; the studio adds where the cause is.
  assert.match(await row.textContent(), /must be of type strin/);
  assert.equal((await row.locator('.follows-from').textContent()).trim(), `follows from the CRD error at line ${line}`);
  // After the CRD's own error in the list.
  const order = await page.evaluate(() => [...document.querySelectorAll('#panel-problems li.problem')]
    .map((li) => (li.classList.contains('consequence') ? 'consequence' : li.textContent.includes('Unsupported value: "strin"') ? 'cause' : 'other')));
  assert.ok(order.indexOf('cause') >= 0 && order.indexOf('cause') < order.indexOf('consequence'), order.join(', '));
  await shots('newcomer-consequence');
  await paste('CRD', CRD);
});

test('a cost over the budget links from Problems to the bounds on the CEL tab (item 5)', async () => {
  await paste('CRD', example('cel-cost-budget', 'crd.yaml'));
  await paste('Object', example('cel-cost-budget', 'object.yaml'));
  await page.getByRole('tab', { name: /Problems/ }).click();
  const link = page.getByRole('button', { name: 'Show the bounds that fix it (CEL rules tab)' }).first();
  await link.waitFor();
  await link.click();
  assert.equal(await page.getByRole('tab', { name: /CEL rules/ }).getAttribute('aria-selected'), 'true');
  await page.getByRole('tab', { name: /Problems/ }).click();
  await paste('CRD', CRD);
  await paste('Object', example('crontab', 'object.yaml'));
});

test('an info finding reads "note", the word used everywhere else (item 9)', async () => {
  await paste('CRD', `${CRD}---\n${example('crontab', 'object.yaml')}`);
  await page.getByRole('tab', { name: /Problems/ }).click();
  const row = page.locator('.problem', { hasText: 'only the first CustomResourceDefinition' });
  await row.waitFor();
  assert.equal((await row.locator('.sev').textContent()).trim(), 'note');
  // The object moves to the Object editor in one click.
  await paste('Object', '');
  await page.getByRole('button', { name: 'Move the CronTab to the Object editor' }).click();
  await until(() => document.querySelector('.cm-content[aria-label="Object"]').textContent.includes('my-new-cron-object'), null, 'the object to move');
  assert.doesNotMatch(await editor('CRD').textContent(), /my-new-cron-object/);
  await verdict({ startsWith: 'Accepted', what: 'the CRD and its object' });
  await paste('CRD', CRD);
});

test('the split between editors and results moves with the keyboard and is remembered (item 8)', async () => {
  const results = () => page.locator('.studio > .bottom').evaluate((b) => b.getBoundingClientRect().height);
  const before = await results();
  const splitter = page.getByRole('separator', { name: /Height of the results/ });
  await splitter.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowUp');
  await page.waitForTimeout(100);
  const taller = await results();
  assert.ok(taller >= before + 100, `results ${before} -> ${taller} px`);
  await shots('newcomer-split');
  await page.reload();
  await editor('Object').waitFor();
  const again = await results();
  assert.ok(Math.abs(again - taller) <= 2, `remembered: ${taller} -> ${again} px`);
  await splitter.focus();
  await page.keyboard.press('Home');
  await page.evaluate(() => localStorage.removeItem('crd-studio.results-height'));
});

test('both editors empty: Problems says how to start (item 10)', async () => {
  await paste('CRD', '');
  await paste('Object', '');
  await page.getByRole('tab', { name: /Problems/ }).click();
  await page.locator('#panel-problems').getByText('Nothing to analyse yet').waitFor();
  await shots('newcomer-empty');
  await page.getByRole('button', { name: 'Load the CronTab example' }).click();
  await verdict({ startsWith: 'Accepted', what: 'the example' });
  assert.match(await editor('CRD').textContent(), /crontabs\.stable\.example\.com/);
});

test('result tabs: one Tab stop, arrow keys move between them (item 11)', async () => {
  await page.getByRole('tab', { name: /Problems/ }).click();
  const stops = await page.evaluate(() => [...document.querySelectorAll('.tabs [role="tab"]')]
    .filter((t) => t.tabIndex >= 0).map((t) => t.id));
  assert.deepEqual(stops, ['tab-problems']);
  await page.locator('#tab-problems').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-stored');
  assert.equal(await page.locator('#tab-stored').getAttribute('aria-selected'), 'true');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-explain');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-problems');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-explain');
  await page.keyboard.press('Home');
  assert.equal(await page.locator('#tab-problems').getAttribute('aria-selected'), 'true');
  // A Problems row's focus ring is drawn inside it (the panel would cut it).
  await paste('Object', `${example('crontab', 'object.yaml')}imgae: x\n`);
  const row = page.locator('#panel-problems button.problem-button').first();
  await row.waitFor();
  await row.focus();
  assert.equal(await row.evaluate((b) => getComputedStyle(b).outlineOffset), '-2px');
  await paste('Object', example('crontab', 'object.yaml'));
});

test('at 360 px the controls keep their labels and the tabs all show (item 12)', async () => {
  await page.setViewportSize({ width: 360, height: 800 });
  try {
    await page.waitForTimeout(300);
    for (const label of ['Field validation', 'Kubernetes', 'Theme']) {
      const w = await page.locator('.topbar .option > span:first-child', { hasText: label }).first()
        .evaluate((s) => s.getBoundingClientRect().width);
      assert.ok(w > 20, `${label} label ${w} px wide`);
    }
    const row = await page.evaluate(() => {
      const t = document.querySelector('.tabs');
      return { scroll: t.scrollWidth, client: t.clientWidth };
    });
    assert.ok(row.scroll <= row.client + 1, `the tab row scrolls: ${JSON.stringify(row)}`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('polish: Share as tall as the selects, comments wrap, field selector hint (item 13)', async () => {
  const h = async (loc) => loc.evaluate((e) => e.getBoundingClientRect().height);
  const share = await h(page.getByRole('button', { name: 'Share' }));
  const select = await h(page.getByRole('combobox', { name: 'Field validation' }));
  assert.ok(Math.abs(share - select) <= 3, `Share ${share} px, select ${select} px`);
  // A long comment wraps at the editor's edge: nothing scrolls sideways.
  await paste('CRD', `# ${'a long explanation '.repeat(20)}\n${CRD}`);
  await editor('CRD').locator('.cm-comment-line').first().waitFor();
  const scroller = await editor('CRD').evaluate((c) => {
    const s = c.closest('.cm-scroller');
    return { scroll: s.scrollWidth, client: s.clientWidth };
  });
  assert.ok(scroller.scroll <= scroller.client + 1, `the CRD editor scrolls sideways: ${JSON.stringify(scroller)}`);
  await paste('CRD', CRD);
  // A field selector on a field that is not selectable: the hint names selectableFields.
  await page.getByRole('tab', { name: /kubectl get/ }).click();
  const input = page.getByRole('textbox', { name: 'Field selector' });
  await input.fill('spec.cronSpec=x');
  await page.locator('.selector-hint').waitFor();
  assert.match(await page.locator('.selector-hint').textContent(), /selectableFields: \[\{jsonPath: \.spec\.cronSpec\}\]/);
  await shots('newcomer-selector-hint');
  await page.locator('.selector-hint').scrollIntoViewIfNeeded();
  await screenshot(page.locator('#panel-get'), 'newcomer-selector-fix.png');
  // The fix lists the field in the version's selectableFields (an edit Undo takes back).
  await page.getByRole('button', { name: 'Fix: add .spec.cronSpec to the selectableFields of v1' }).click();
  await until(() => document.querySelector('.cm-content[aria-label="CRD"]').textContent.includes('- jsonPath: .spec.cronSpec'), null, 'the field listed');
  await until(() => !document.querySelector('.selector-hint') && document.querySelector('.selector-rows'), null, 'the selector to work');
  await input.fill('');
  await paste('CRD', CRD);
  await page.getByRole('tab', { name: /Problems/ }).click();
});

test('Previous CRD: Copy from CRD, a usable CRD editor, and undo stays in the focused editor (item 6)', async () => {
  await paste('CRD', CRD);
  const toggle = page.getByRole('button', { name: 'Previous CRD' });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const before = await editor('CRD').evaluate((c) => c.closest('.cm-editor').getBoundingClientRect().height);
  await page.getByRole('button', { name: 'Copy from CRD' }).click();
  await until(() => document.querySelector('.cm-content[aria-label="Previous CRD"]')?.textContent.includes('crontabs.stable.example.com'), null, 'the copy');
  // The CRD editor keeps most of the column.
  const previous = await editor('Previous CRD').evaluate((c) => c.closest('.cm-editor').getBoundingClientRect().height);
  assert.ok(before > previous * 1.5, `CRD ${before} px, Previous CRD ${previous} px`);
  await shots('newcomer-previous-crd');
  // A paste in the Previous CRD, an edit in the CRD, then Ctrl+Z with the focus outside both.
  // Pasted from its first line (the content's middle is out of the small editor's view).
  const pasteIntoPrevious = async (text) => {
    await editor('Previous CRD').locator('.cm-line').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  await pasteIntoPrevious(`${CRD}# pasted before\n`);
  await editor('CRD').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# typed in the CRD');
  await page.locator('.topbar h1').click();
  await page.keyboard.press('Control+z');
  await page.waitForTimeout(300);
  assert.match(await editor('Previous CRD').textContent(), /# pasted before/, 'the Previous CRD keeps its paste');
  assert.match(await editor('CRD').textContent(), /# typed in the CRD/);
  // In the CRD editor, Ctrl+Z undoes the CRD's own last edit.
  await editor('CRD').click();
  await page.keyboard.press('Control+z');
  await until(() => !document.querySelector('.cm-content[aria-label="CRD"]').textContent.includes('# typed in the CRD'), null, 'the CRD edit undone');
  assert.match(await editor('Previous CRD').textContent(), /# pasted before/);
  await pasteIntoPrevious('');
  await toggle.click();
  await paste('CRD', CRD);
});

test('Generate sample has an all-fields sibling (item 7)', async () => {
  await paste('CRD', CRD);
  await paste('Object', '');
  const all = page.getByRole('button', { name: 'All fields' });
  await until(() => [...document.querySelectorAll('button')].some((b) => b.textContent === 'All fields' && !b.disabled), null, 'the all-fields sample');
  await all.click();
  await until(() => document.querySelector('.cm-content[aria-label="Object"]').textContent.includes('image'), null, 'the sample');
  const text = (await lines('Object')).join('\n');
  for (const field of ['cronSpec', 'image', 'replicas']) assert.match(text, new RegExp(`${field}:`), text);
  await paste('Object', example('crontab', 'object.yaml'));
});

test('narrow embeds: the result tabs wrap and the read-only badge shows whole (item 12)', async () => {
  // Both embed kinds: the iframe page (?embed&lock=crd) and the <crd-studio> element (demo/).
  const other = await page.context().newPage();
  try {
    for (const width of [400, 360]) {
      await other.setViewportSize({ width, height: 900 });
      for (const [kind, url] of [['iframe', `${BASE_URL}?embed&lock=crd`], ['element', new URL('demo/', BASE_URL).href]]) {
        await other.goto(url);
        // The demo mounts an element when it nears the viewport; the second one is read-only.
        if (kind === 'element') await other.locator('crd-studio').nth(1).scrollIntoViewIfNeeded();
        // The first read-only studio (the iframe page's own, or the demo's second element).
        const studio = other.locator('.studio.embed:has(.cm-content[aria-readonly="true"])').first();
        await studio.scrollIntoViewIfNeeded();
        await studio.locator('.tabs').waitFor();
        await other.waitForTimeout(300);
        const m = await studio.evaluate((s) => {
          const tabs = s.querySelector('.tabs');
          const h2 = s.querySelector('.pane:has(.cm-content[aria-readonly="true"]) > h2');
          const badge = getComputedStyle(h2, '::after');
          const last = [...tabs.querySelectorAll('[role="tab"]')].pop().getBoundingClientRect();
          return {
            tabs: { scroll: tabs.scrollWidth, client: tabs.clientWidth, lastRight: last.right, right: tabs.getBoundingClientRect().right },
            h2: { scroll: h2.scrollWidth, client: h2.clientWidth },
            badge: { content: badge.content, width: parseFloat(badge.width) },
          };
        });
        const what = `${kind} at ${width} px: ${JSON.stringify(m)}`;
        assert.ok(m.tabs.scroll <= m.tabs.client + 1 && m.tabs.lastRight <= m.tabs.right + 1, `the tabs scroll, ${what}`);
        assert.equal(m.badge.content, '"read-only"', what);
        assert.ok(m.badge.width >= 40, `the badge is squeezed, ${what}`);
        assert.ok(m.h2.scroll <= m.h2.client + 1, `the header is cut, ${what}`);
        await studio.scrollIntoViewIfNeeded();
        await screenshot(other, `newcomer-embed-${kind}-${width}.png`);
      }
    }
  } finally {
    await other.close();
  }
});
