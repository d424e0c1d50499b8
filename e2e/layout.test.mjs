// End-to-end tests of the page's layout by width (issue 14, item 5): from a phone (360 px)
// to a large screen (1920 px) nothing overflows sideways, the status line is never cut short,
// both editors keep a usable size and every result tab can be reached (the tab row scrolls).
//
//   BASE_URL=http://127.0.0.1:8765/ node --test layout.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { useStudio } from './harness.mjs';

const WIDTHS = [
  [360, 780],
  [800, 900],
  [1280, 800],
  [1920, 1080],
];
const studio = useStudio('layout', { wait: 'CRD' });
const { editor, verdict, screenshot } = studio;
let page;
before(async () => {
  page = await studio.ready;
});

/**
 * Waits until the status line shows the broken object's verdict. (Not merely "not
 * Analysing…": right after typing, the verdict of an intermediate text can still be shown,
 * before "Analysing…" appears 100 ms after the edit.)
 */
const settled = () => verdict({ startsWith: 'Rejected', timeout: 10_000 });

for (const [width, height] of WIDTHS) {
  test(`at ${width} px: no sideways overflow, the whole status, both editors, every tab`, async () => {
    await page.setViewportSize({ width, height });
    // A verdict with a long status line: a broken object.
    await editor('Object').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n  replicas: "many"');
    const status = await settled();
    assert.match(status, /Rejected/);
    await page.evaluate(() => window.scrollTo(0, 0));
    const m = await page.evaluate(() => {
      const box = (e) => e.getBoundingClientRect();
      const st = document.querySelector('.topbar [role="status"]');
      const s = box(st);
      const edit = (l) => box(document.querySelector(`.cm-content[aria-label="${l}"]`).closest('.cm-editor'));
      return {
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth,
        status: { left: s.left, right: s.right, scrollWidth: st.scrollWidth, clientWidth: st.clientWidth, scrollHeight: st.scrollHeight, clientHeight: st.clientHeight },
        crd: edit('CRD'),
        object: edit('Object'),
        controls: [...document.querySelectorAll('.topbar select, .topbar button')].map((e) => [e.getAttribute('aria-label') ?? e.textContent, box(e).left, box(e).right]),
      };
    });
    assert.ok(m.scrollWidth <= m.innerWidth, `page ${m.scrollWidth} px wide in a ${m.innerWidth} px window`);
    assert.ok(m.status.left >= 0 && m.status.right <= width, `status at ${m.status.left}..${m.status.right}`);
    assert.ok(m.status.scrollWidth <= m.status.clientWidth && m.status.scrollHeight <= m.status.clientHeight, `status text cut: ${JSON.stringify(m.status)}`);
    for (const [name, left, right] of m.controls) {
      assert.ok(left >= 0 && right <= width, `${name.trim()} at ${left}..${right}`);
    }
    for (const [name, r] of [['CRD', m.crd], ['Object', m.object]]) {
      assert.ok(r.width >= 200 && r.height >= 150, `${name} editor ${Math.round(r.width)} x ${Math.round(r.height)}`);
      assert.ok(r.left >= 0 && r.right <= width, `${name} editor at ${r.left}..${r.right}`);
    }
    await screenshot(`layout-${width}.png`, { fullPage: true });
    // Every tab, reached with the arrow keys (the ARIA tabs pattern, issue 30): scrolled into
    // the tab row whole, inside the row and the window, and Enter opens its panel.
    const tabs = page.locator('.tabs [role="tab"]');
    // Problems, Stored object, CEL rules, kubectl get, Conversion, Changes, Tests, Explain.
    const n = await tabs.count();
    assert.equal(n, 8);
    await tabs.first().focus();
    for (let i = 0; i < n; i++) {
      const tab = tabs.nth(i);
      if (i > 0) await page.keyboard.press('ArrowRight');
      assert.ok(await tab.evaluate((t) => t === document.activeElement), `ArrowRight reaches tab ${i}`);
      await page.keyboard.press('Enter');
      const r = await tab.evaluate((t) => {
        const b = t.getBoundingClientRect();
        const row = t.closest('.tabs').getBoundingClientRect();
        return { left: b.left, right: b.right, rowLeft: row.left, rowRight: row.right, selected: t.getAttribute('aria-selected') };
      });
      assert.equal(r.selected, 'true');
      assert.ok(r.left >= r.rowLeft - 1 && r.right <= r.rowRight + 1, `tab ${i} at ${r.left}..${r.right} in ${r.rowLeft}..${r.rowRight}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(overflow <= 0, `tab ${i} makes the page ${overflow} px too wide`);
    }
    await page.locator('#tab-problems').click();
    // Back to the accepted object.
    await editor('Object').click();
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
  });
}
