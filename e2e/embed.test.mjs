// End-to-end tests of the playgrounds for docs pages: `dist/demo/index.html` loads
// `crd-studio-embed.js`, which upgrades its <crd-studio> elements into studios in shadow roots.
//
//   BASE_URL=http://127.0.0.1:8765/ [SCREENSHOT_DIR=../test-output] node --test embed.test.mjs
//
// Playwright's CSS and role locators pierce open shadow roots, so `embed(i).getByRole(...)`
// finds what the i-th playground shows.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { BASE_URL, editor, launch, screenshot as screenshotOf, useStudio, verdict as verdictIn } from './harness.mjs';

const DEMO_URL = new URL('demo/', BASE_URL).href;
const ORIGIN = new URL(BASE_URL).origin;

const requests = [];
/** Each response's URL and its body's size gzipped by `gzip -9 -n`, the command `cargo xtask
 * build` measures the payload with (xtask/src/embed_dist.rs): the two counts differ only by the
 * test build's hooks. (Node's zlib, Chromium's fork, makes the wasm about 15 KB larger.) */
const downloads = [];
/** The payload budget: what a page with embeds downloads, gzipped (issue 11's 1.2 MB, raised
 * to 1.41 MB by later issues, lowered by issue 29 to its goal, 1 MB, with the second wasm
 * module fetched on first use: xtask/src/wasm_split.rs, xtask/src/embed_dist.rs). */
const BUDGET_GZIP = 1_000_000;

const studio = useStudio('embed', {
  open: false,
  // The page's requests and its worker's.
  setup: (page) => {
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', async (r) => {
      try {
        const body = await r.body();
        const gzip = execFileSync('gzip', ['-9', '-n', '-c'], { input: body, maxBuffer: 1 << 26 }).length;
        downloads.push({ url: r.url(), gzip });
      } catch {}
    });
  },
});
const errors = studio.errors;
let page;
let context;
before(async () => {
  await studio.ready;
  ({ page, context } = studio);
});

const embed = (i) => page.locator('crd-studio').nth(i);
const editorOf = (i, label) => editor(embed(i), label);
const states = () => page.evaluate(() => [...document.querySelectorAll('crd-studio')].map((e) => e.dataset.state));
const wasmFetches = () => requests.filter((u) => u.endsWith('.wasm')).length;

/** Waits until the i-th playground shows a verdict (not "Analysing…") and returns it. */
async function verdict(i) {
  await embed(i).scrollIntoViewIfNeeded();
  return verdictIn(embed(i), { what: `playground ${i}'s verdict` });
}

const screenshot = (name, target = page) => screenshotOf(target, name);

test('embeds are created lazily: only the ones near the viewport are mounted', async (t) => {
  await page.goto(DEMO_URL);
  await page.waitForFunction(() => document.querySelector('crd-studio')?.dataset.state === 'ready');
  // Load -> first findings: the first playground's verdict, from navigation start.
  await page.waitForFunction(() => {
    const s = document.querySelector('crd-studio').shadowRoot.querySelector('[role="status"]');
    return s && /^(Accepted|Rejected)/.test(s.textContent);
  });
  t.diagnostic(`demo page load -> first findings: ${Math.round(await page.evaluate(() => performance.now()))} ms`);
  assert.ok((await embed(0).getByRole('status').count()) === 1, 'the first embed is mounted');
  const initial = await states();
  assert.equal(initial.length, 4, 'the demo page has four playgrounds');
  for (const i of [2, 3]) {
    assert.equal(initial[i], 'waiting', `embed ${i + 1} (below the fold) is not mounted yet`);
    assert.equal(await embed(i).locator('.embed-root').count(), 0);
  }
  // Scrolling to the third mounts it.
  await embed(2).scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('crd-studio')[2].dataset.state === 'ready');
});

test('each embed shows its own verdict; one wasm download, one worker, no other origin', async (t) => {
  assert.match(await verdict(0), /^Accepted/, 'CronTab');
  assert.match(await verdict(1), /^Rejected/, 'the read-only CRD with a bad CronTab');
  assert.match(await verdict(2), /^Accepted/, 'defaulting and pruning under Warn');
  assert.match(await verdict(3), /^Rejected/, 'messageExpression');
  // Their own texts: each embed holds its element's CRD and object.
  assert.match(await editorOf(0, 'Object').textContent(), /my-new-cron-object/);
  assert.match(await editorOf(2, 'Object').textContent(), /kind: Backup/);
  assert.match(await editorOf(3, 'CRD').textContent(), /databases\.data\.example\.com/);
  // The third opens on the Stored object tab, with the defaults filled in.
  await embed(2).getByRole('tab', { name: /Stored object/ }).waitFor();
  assert.equal(await embed(2).getByRole('tab', { name: /Stored object/ }).getAttribute('aria-selected'), 'true');
  // The first module once; the second (xtask/src/wasm_split.rs: the CronTab playground's first
  // paint never needs it, the other playgrounds' analyses may) at most once, by the worker.
  const wasmUrls = requests.filter((u) => u.endsWith('.wasm'));
  assert.equal(wasmUrls.filter((u) => !u.endsWith('_split.wasm')).length, 1, `the wasm once: ${wasmUrls}`);
  assert.ok(wasmUrls.filter((u) => u.endsWith('_split.wasm')).length <= 1, `the second module: ${wasmUrls}`);
  for (let i = 0; i < 50 && page.workers().length === 0; i++) await page.waitForTimeout(100);
  assert.equal(page.workers().length, 1, 'one engine worker for all embeds');
  const foreign = requests.filter((u) => !u.startsWith(ORIGIN + '/') && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'no request leaves the origin');
  // What the playgrounds downloaded, gzipped: every response but the docs page's own (its
  // HTML and CSS under demo/), each file once (the worker imports the JS glue again; this test
  // server forbids caching, a normal host lets the HTTP cache answer).
  const payload = new Map();
  // The second wasm module is not the first paint's: the playgrounds' analyses fetch it.
  for (const d of downloads) {
    if (!d.url.startsWith(DEMO_URL) && !d.url.endsWith('_split.wasm')) payload.set(d.url, d.gzip);
  }
  for (const d of downloads) t.diagnostic(`${d.url.slice(ORIGIN.length)}: ${d.gzip} bytes gzipped`);
  const all = downloads.reduce((n, d) => n + d.gzip, 0);
  const total = [...payload.values()].reduce((n, g) => n + g, 0);
  t.diagnostic(`demo page with four playgrounds: ${downloads.length} responses, ${all} bytes gzipped`);
  t.diagnostic(`the playgrounds' files (each once, without the page): ${payload.size} files, ${total} bytes gzipped`);
  assert.ok(total <= BUDGET_GZIP, `within the ${BUDGET_GZIP} byte budget: ${total}`);
  assert.deepEqual(errors, []);
});

test('editing one embed changes only that one', async () => {
  const before = [await verdict(1), await verdict(2), await verdict(3)];
  await embed(0).scrollIntoViewIfNeeded();
  await editorOf(0, 'Object').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('bogus: 1\n');
  await embed(0).getByText('unknown field "bogus"').first().waitFor();
  assert.match(await verdict(0), /^Rejected/);
  assert.deepEqual([await verdict(1), await verdict(2), await verdict(3)], before);
  // The other embeds' problems do not mention it.
  for (const i of [1, 2, 3]) assert.equal(await embed(i).getByText('unknown field "bogus"').count(), 0);
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Delete');
  await page.waitForFunction(() =>
    document.querySelector('crd-studio').shadowRoot.querySelector('[role="status"]')?.textContent.startsWith('Accepted'),
  );
});

test('the read-only CRD cannot be edited; its object can', async () => {
  await embed(1).scrollIntoViewIfNeeded();
  const crd = editorOf(1, 'CRD');
  const text = await crd.textContent();
  await crd.click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('x');
  await page.waitForTimeout(200);
  assert.equal(await crd.textContent(), text, 'the CRD is unchanged');
  // Fix the object: five cron fields and at most 10 replicas.
  const object = editorOf(1, 'Object');
  await object.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(
    'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: fixed\nspec:\n  cronSpec: "*/5 * * * *"\n  image: nginx\n  replicas: 3\n',
  );
  await page.waitForFunction(() =>
    document.querySelectorAll('crd-studio')[1].shadowRoot.querySelector('[role="status"]')?.textContent.startsWith('Accepted'),
  );
});

test('an embed\'s Tests tab runs the cases of its data-tests script', async () => {
  await embed(1).scrollIntoViewIfNeeded();
  await embed(1).getByRole('tab', { name: /Tests/ }).click();
  const tests = embed(1).getByRole('region', { name: 'Tests' });
  const summary = tests.getByTestId('tests-summary');
  for (let i = 0; i < 100 && (await summary.textContent()) !== 'All 3 passed'; i++) await page.waitForTimeout(100);
  assert.equal(await summary.textContent(), 'All 3 passed');
  assert.equal(await tests.getByTestId('test-case').first().getByRole('textbox').inputValue(), 'too many replicas');
  // The script's text is not part of the object.
  assert.doesNotMatch(await editorOf(1, 'Object').textContent(), /cases:/);
  await screenshot('embed-tests-tab.png', embed(1));
  await embed(1).getByRole('tab', { name: /Problems/ }).click();
});

test('the page and the studios do not style each other', async () => {
  const look = await page.evaluate(() => {
    const host = document.querySelectorAll('crd-studio')[0];
    const inner = host.shadowRoot.querySelector('h2, [role="status"]');
    const button = host.shadowRoot.querySelector('button');
    const pageH2 = document.querySelector('main h2');
    return {
      innerFont: getComputedStyle(inner).fontFamily,
      innerColor: getComputedStyle(inner).color,
      buttonTransform: button ? getComputedStyle(button).textTransform : 'none',
      pageH2Color: getComputedStyle(pageH2).color,
      bodyFont: getComputedStyle(document.body).fontFamily,
      pageSheets: document.styleSheets.length,
    };
  });
  assert.doesNotMatch(look.innerFont, /Georgia/, 'the page font does not reach in');
  assert.notEqual(look.innerColor, look.pageH2Color, "the page's heading colour does not reach in");
  assert.equal(look.buttonTransform, 'none', "the page's button rule does not reach in");
  assert.match(look.bodyFont, /Georgia/, "the studio's CSS does not reach out");
  assert.equal(look.pageSheets, 1, 'the page has only its own stylesheet');
});

test('a narrow (400 px) page: the embeds fit', async () => {
  await page.setViewportSize({ width: 400, height: 800 });
  await page.goto(DEMO_URL);
  for (const i of [0, 1, 2, 3]) await verdict(i);
  const shoot = async (i, name) => {
    await page.evaluate((n) => document.querySelectorAll('crd-studio')[n].scrollIntoView({ block: 'start' }), i);
    await page.waitForTimeout(300);
    await screenshot(name);
  };
  await shoot(0, 'embed-01-narrow-400.png');
  await shoot(1, 'embed-02-narrow-400-read-only.png');
  const widths = await page.evaluate(() => ({
    hosts: [...document.querySelectorAll('crd-studio')].map((e) => e.getBoundingClientRect().right),
    page: document.documentElement.scrollWidth,
  }));
  for (const right of widths.hosts) assert.ok(right <= 400, `each embed is within the page's width (${right})`);
  assert.ok(widths.page <= 400, `the page does not scroll sideways (${widths.page})`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await shoot(2, 'embed-03-wide-stored.png');
  await shoot(3, 'embed-04-wide-cel.png');
});

test('without JavaScript the texts are readable', async () => {
  const nojs = await launch('crd-studio-e2e-embed-nojs-', { javaScriptEnabled: false, viewport: { width: 800, height: 900 } });
  try {
    const p = nojs.context.pages()[0] ?? (await nojs.context.newPage());
    await p.goto(DEMO_URL);
    const first = p.locator('crd-studio').first();
    const text = await first.innerText();
    assert.match(text, /kind: CustomResourceDefinition\n/);
    assert.match(text, /\n---\n/);
    assert.equal(await first.evaluate((e) => getComputedStyle(e).whiteSpace), 'pre');
    await first.scrollIntoViewIfNeeded();
    await screenshot('embed-05-no-javascript.png', p);
  } finally {
    await nojs.close();
  }
});

test('the main page downloads its wasm once (the worker gets the compiled module)', async () => {
  requests.length = 0;
  await page.goto(BASE_URL);
  await page.locator('.cm-content[aria-label="Object"]').waitFor();
  await page.waitForFunction(() => {
    const s = document.querySelector('[role="status"]');
    return s && !s.textContent.includes('Analysing');
  });
  assert.equal(wasmFetches(), 1, `${requests.filter((u) => u.endsWith('.wasm'))}`);
});

test('a removed embed is unmounted; the others keep working', async () => {
  errors.length = 0;
  await page.goto(DEMO_URL);
  for (const i of [0, 1]) await verdict(i);
  await page.evaluate(() => document.querySelectorAll('crd-studio')[1].remove());
  await page.waitForTimeout(100);
  assert.equal(await page.locator('crd-studio').count(), 3);
  await editorOf(0, 'Object').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type('gone: 1\n');
  await embed(0).getByText('unknown field "gone"').first().waitFor();
  assert.deepEqual(errors, []);
});

test('"Open in CRD Studio" opens the full studio with the embed\'s texts as they are', async () => {
  // The texts as edited in the previous test.
  const [studio] = await Promise.all([
    context.waitForEvent('page'),
    embed(0).getByRole('link', { name: 'Open in CRD Studio' }).click(),
  ]);
  await studio.waitForLoadState();
  // The studio beside the script (it then keeps the link's state as its own work).
  assert.ok(studio.url().startsWith(new URL('index.html', BASE_URL).href), studio.url());
  const object = studio.locator('.cm-content[aria-label="Object"]');
  await object.waitFor();
  assert.match(await object.textContent(), /gone: 1/);
  assert.match(await studio.locator('.cm-content[aria-label="CRD"]').textContent(), /crontabs\.stable\.example\.com/);
  await studio.close();
});
