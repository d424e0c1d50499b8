// End-to-end accessibility checks (issue 14, items 4 and 8): an axe-core audit of the studio
// and of an embedded playground, in light and dark, with every result tab open, finds no
// serious or critical violation (colour contrast included); the theme follows the system and
// the Theme select, which is remembered; every control shows the keyboard focus.
//
//   BASE_URL=http://127.0.0.1:8765/ node --test a11y.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BASE_URL, TABS, screenshot, useStudio } from './harness.mjs';

// axe-core's source, evaluated through the DevTools protocol: the pages' Content-Security-Policy
// refuses inline scripts, so a script tag could not inject it.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const studio = useStudio('a11y', { wait: 'CRD' });
const { editor } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

/** Serious and critical axe violations of the page (shadow roots included), as text. */
async function audit(where) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes
        .slice(0, 5)
        .map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary.replace(/\s+/g, ' ')}`)
        .join('\n')}`);
  });
  assert.deepEqual(violations, [], `${where}:\n${violations.join('\n')}`);
}

/** Waits until the status line shows a verdict. */
const settled = () => studio.verdict({ timeout: 10_000 });

const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test('the theme follows the system, and the Theme select overrides it and is remembered', async () => {
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await background();
  assert.notEqual(light, dark, 'prefers-color-scheme: dark changes the colours');
  assert.equal(dark, 'rgb(13, 17, 23)');
  // The editors follow too.
  const editorBg = await page.evaluate(() => getComputedStyle(document.querySelector('.cm-editor')).backgroundColor);
  assert.equal(editorBg, 'rgb(22, 27, 34)');
  const theme = page.getByRole('combobox', { name: 'Theme' });
  await theme.selectOption('light');
  assert.equal(await background(), light, 'Light wins over a dark system');
  await page.reload();
  await editor('CRD').waitFor();
  assert.equal(await background(), light, 'the choice is remembered');
  assert.equal(await page.getByRole('combobox', { name: 'Theme' }).inputValue(), 'light');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  assert.equal(await background(), dark, 'Dark wins over a light system');
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
  assert.equal(await background(), light);
  assert.equal(await page.evaluate(() => localStorage.getItem('crd-studio.theme')), null);
  // The iframe embed takes ?theme= and never stores it.
  await page.goto(`${BASE_URL}?embed&theme=dark`);
  await page.locator('.studio.embed .cm-content').first().waitFor();
  assert.equal(await background(), dark, '?embed&theme=dark on a light system');
  assert.equal(await page.evaluate(() => localStorage.getItem('crd-studio.theme')), null);
  await page.goto(BASE_URL);
  await editor('CRD').waitFor();
  assert.equal(await background(), light);
});

for (const scheme of ['light', 'dark']) {
  test(`axe: the studio in ${scheme}, every tab, a rejected object`, async () => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1280, height: 800 });
    // Findings of every severity on screen: a broken object.
    await editor('Object').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n  replicas: "many"');
    await settled();
    for (const tab of TABS) {
      await page.locator(`#tab-${tab}`).click();
      await page.waitForTimeout(200);
      await audit(`${scheme}, tab ${tab}`);
      await screenshot(page, `a11y-${scheme}-${tab}.png`);
    }
    await page.locator('#tab-problems').click();
    await editor('Object').click();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
  });
}

test('axe: every example of the gallery in both themes, every tab, the old object open', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const slugs = await page.locator('select[aria-label="Examples"] option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(slugs.length >= 8, `${slugs.length} examples`);
  for (const slug of slugs) {
    await page.getByRole('combobox', { name: 'Examples' }).selectOption(slug);
    await settled();
    const old = page.locator('#old-title');
    if ((await old.getAttribute('aria-expanded')) !== 'true') await old.click();
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const tab of TABS) {
        await page.locator(`#tab-${tab}`).click();
        await page.waitForTimeout(100);
        await audit(`example ${slug}, ${scheme}, tab ${tab}`);
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('every control the Tab key reaches shows a focus outline', async () => {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.reload();
  await editor('CRD').waitFor();
  const seen = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    // CodeMirror marks a focused editor (.cm-focused) a moment after the focus event.
    await page.waitForTimeout(60);
    const f = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      // An editor's ring is on its .cm-editor.
      const ringed = e.closest('.cm-editor') ?? e;
      const s = getComputedStyle(ringed);
      return {
        name: `${e.tagName.toLowerCase()} ${e.getAttribute('aria-label') ?? e.textContent.trim().slice(0, 30)}`,
        outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1,
      };
    });
    if (!f) break;
    seen.push(f.name);
    assert.ok(f.outline, `${f.name} shows no focus outline`);
  }
  assert.ok(seen.length >= 12, `Tab reached ${seen.length} controls: ${seen.join(', ')}`);
  for (const name of ['select Field validation', 'select Examples', 'button Share', 'button Reset example', 'select Theme', 'div CRD', 'div Object']) {
    assert.ok(seen.some((s) => s.startsWith(name)), `Tab reaches ${name}: ${seen.join(', ')}`);
  }
});

for (const scheme of ['light', 'dark']) {
  test(`axe: an embedded playground on the demo page in ${scheme}, every tab`, async () => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(new URL('demo/', BASE_URL).href);
    const host = page.locator('crd-studio').first();
    await host.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('crd-studio')?.dataset.state === 'ready');
    const root = host.locator('.studio.embed');
    await root.locator('.cm-content').first().waitFor();
    for (const tab of TABS) {
      await root.locator(`#tab-${tab}`).click();
      await page.waitForTimeout(300);
      await audit(`embed, ${scheme}, tab ${tab}`);
    }
    // The embed follows the reader's system unless the page fixes its theme.
    const bg = () => root.evaluate((s) => getComputedStyle(s.querySelector('.cm-editor')).backgroundColor);
    assert.equal(await bg(), scheme === 'dark' ? 'rgb(22, 27, 34)' : 'rgb(255, 255, 255)');
    await host.evaluate((h) => h.setAttribute('theme', 'dark'));
    assert.equal(await bg(), 'rgb(22, 27, 34)', 'theme="dark"');
    await host.evaluate((h) => h.setAttribute('theme', 'light'));
    assert.equal(await bg(), 'rgb(255, 255, 255)', 'theme="light"');
    await host.evaluate((h) => h.removeAttribute('theme'));
    await screenshot(host, `a11y-embed-${scheme}.png`);
  });
}
