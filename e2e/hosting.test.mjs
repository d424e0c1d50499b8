// End-to-end tests of hosting, share links, the examples gallery and the iframe embed
// (issue 11): dist/ served under a sub-path by a server of the test's own.
//
//   DIST_DIR=../dist [SCREENSHOT_DIR=../test-output] node --test hosting.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DIST, allowClipboard, editor, launch, paste, repoFile, screenshot, serveDist, verdict as verdictIn } from './harness.mjs';

const PREFIX = '/tools/crd-studio/';
const TIMEOUT = 30_000;
const FIXED_LINK = repoFile('tests/fixtures/share-link-v1.txt').trim();

let server;
let studioUrl;
// The docs page of the iframe test, filled in when the link is known.
const pages = {};

before(async () => {
  server = await serveDist(DIST, PREFIX, pages);
  studioUrl = `${server.origin}${PREFIX}`;
});

after(async () => {
  await server?.close();
});

/** Runs `body(context)` in a browser of its own (a fresh profile), closed afterwards. */
async function withBrowser(prefix, body, options) {
  const browser = await launch(prefix, { timeout: TIMEOUT, ...options });
  try {
    return await body(browser.context);
  } finally {
    await browser.close();
  }
}

/** Every request a page makes, to check none leaves the origin. */
function recordRequests(context) {
  const urls = [];
  context.on('request', (r) => urls.push(r.url()));
  return urls;
}

const statusOf = (page) => page.locator('.topbar [role="status"]');

/** Waits until the status line of the studio in `scope` (a page or a frame) shows a verdict. */
const verdict = (scope) => verdictIn(scope.locator('.topbar'), { timeout: TIMEOUT });

test('dist/ works unchanged under a sub-path, and offline after one visit', async () => {
  await withBrowser('crd-studio-host-', async (context) => {
    const urls = recordRequests(context);
    const page = await context.newPage();
    await page.goto(studioUrl);
    assert.match(await verdict(page), /^Accepted/);
    // The service worker has cached the build.
    await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      return reg.active.state;
    });
    for (const u of urls) assert.ok(u.startsWith(server.origin) || u.startsWith('data:') || u.startsWith('blob:'), `request left the origin: ${u}`);
    await context.setOffline(true);
    await page.reload();
    assert.match(await verdict(page), /^Accepted/);
    // Completion runs in the second wasm module: offline it comes from the service worker's cache.
    await paste(page, 'Object', 'apiVersion: stable.example.com/v1\nkind: CronTab\nspec:\n  ');
    await verdict(page);
    await page.keyboard.press('Control+Space');
    const list = page.locator('.cm-tooltip-autocomplete');
    await list.waitFor({ timeout: TIMEOUT });
    assert.ok((await list.locator('.cm-completionLabel').allTextContents()).includes('replicas'));
    await page.keyboard.press('Escape');
    await screenshot(page, 'hosting-offline.png');
  });
});

test('a share link restores the exact texts and options, and the previous work stays restorable', async () => {
  await withBrowser('crd-studio-share-', async (context) => {
    await allowClipboard(context, server.origin);
    const page = await context.newPage();
    await page.goto(studioUrl);
    await verdict(page);
    // Options: Warn, the CEL tab; a marker typed into the object.
    await page.getByRole('combobox', { name: 'Field validation' }).selectOption('Warn');
    await page.getByRole('tab', { name: 'CEL rules' }).click();
    const object = editor(page, 'Object');
    await object.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nsharedMarker: 1');
    await page.waitForFunction(() => (localStorage.getItem('crd-studio.object') ?? '').includes('sharedMarker'));
    await verdict(page);
    await page.getByRole('button', { name: 'Share' }).click();
    await page.locator('.share-message').filter({ hasText: 'Link copied' }).waitFor();
    const link = page.url();
    assert.match(link, /#s1\./);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    const shared = await page.evaluate(() => ({
      crd: JSON.parse(localStorage.getItem('crd-studio.crd')),
      object: JSON.parse(localStorage.getItem('crd-studio.object')),
    }));
    assert.match(shared.object, /sharedMarker: 1/);

    // The visitor's own work, autosaved.
    await object.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nmyOwnWork: 2');
    await page.waitForFunction(() => (localStorage.getItem('crd-studio.object') ?? '').includes('myOwnWork'));

    // Opening the link loads its state...
    const other = await context.newPage();
    await other.goto(link);
    await verdict(other);
    const opened = await other.evaluate(() => ({
      crd: JSON.parse(localStorage.getItem('crd-studio.crd')),
      object: JSON.parse(localStorage.getItem('crd-studio.object')),
    }));
    assert.deepEqual(opened, shared);
    assert.equal(await other.getByRole('combobox', { name: 'Field validation' }).inputValue(), 'Warn');
    assert.equal(await other.getByRole('tab', { name: 'CEL rules' }).getAttribute('aria-selected'), 'true');
    assert.ok(!other.url().includes('#s1.'), 'the link is opened once, then it is the autosaved work');
    // ...and the previous work is one click away.
    await other.getByRole('button', { name: 'Restore my previous work' }).click();
    await other.waitForFunction(() => document.querySelector('.cm-content[aria-label="Object"]').textContent.includes('myOwnWork'));
    await other.waitForFunction(() => (localStorage.getItem('crd-studio.object') ?? '').includes('myOwnWork'));
  });
});

test('a link made by an older build still opens', async () => {
  await withBrowser('crd-studio-fixed-', async (context) => {
    const page = await context.newPage();
    await page.goto(`${studioUrl}#${FIXED_LINK}`);
    assert.match(await verdict(page), /^Accepted/);
    assert.equal(await page.getByRole('combobox', { name: 'Field validation' }).inputValue(), 'Warn');
    assert.equal(await page.getByRole('tab', { name: 'CEL rules' }).getAttribute('aria-selected'), 'true');
    assert.match(await editor(page, 'CRD').textContent(), /crontabs\.stable\.example\.com/);
  });
});

test('Share says when the texts are too big for a link and offers a download', async () => {
  await withBrowser('crd-studio-big-', async (context) => {
    const page = await context.newPage();
    await page.goto(studioUrl);
    await verdict(page);
    // A CRD whose descriptions do not compress: far over the link limit.
    await page.evaluate(() => {
      const bytes = crypto.getRandomValues(new Uint8Array(60000));
      const noise = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      const crd = JSON.parse(localStorage.getItem('crd-studio.crd') ?? '""');
      localStorage.setItem('crd-studio.crd', JSON.stringify(`${crd}\n# ${noise}\n`));
    });
    await page.reload();
    await verdict(page);
    await page.getByRole('button', { name: 'Share' }).click();
    const message = page.locator('.share-message');
    await message.filter({ hasText: 'Too big for a link' }).waitFor();
    assert.match(await message.getByRole('link').getAttribute('href'), /^blob:/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      message.getByRole('link', { name: /Download the texts/ }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'crd-studio-texts.yaml');
  });
});

// The verdict each example of the gallery is written to show (src/gallery.rs checks the
// details natively).
const EXAMPLES = {
  crontab: 'Accepted',
  'non-structural': 'Rejected',
  'defaulting-pruning': 'Accepted',
  'list-types': 'Rejected',
  'cel-messages-ratcheting': 'Rejected',
  'cel-cost-budget': 'Rejected',
  'multi-version': 'Accepted',
  'webhook-conversion': 'Accepted',
  'printer-columns-scale': 'Accepted',
  'http-route': 'Rejected',
};

test('every example of the gallery loads with its intended verdict, and the work it replaced is restorable', async () => {
  await withBrowser('crd-studio-gallery-', async (context) => {
    const page = await context.newPage();
    await page.goto(studioUrl);
    await verdict(page);
    const select = page.getByRole('combobox', { name: 'Examples' });
    const slugs = await select.locator('option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
    assert.deepEqual(slugs.sort(), Object.keys(EXAMPLES).sort());
    let previous = await statusOf(page).textContent();
    for (const slug of slugs) {
      const title = await select.locator(`option[value="${slug}"]`).textContent();
      await select.selectOption(slug);
      await page.locator('.notice').filter({ hasText: title }).waitFor();
      // Each example has its own CRD: the status changes when its analysis arrives.
      await page.waitForFunction(
        (prev) => {
          const s = document.querySelector('.topbar [role="status"]').textContent;
          return s !== prev && !s.includes('Analysing');
        },
        previous,
      );
      const status = await verdict(page);
      previous = status;
      assert.ok(status.startsWith(EXAMPLES[slug]), `${slug}: ${status}`);
    }
    assert.equal(await page.getByRole('button', { name: 'Restore my previous work' }).count(), 1);
  });
});

test('the iframe embed: compact, its own state, never the autosave, locked CRD, tab, height to the page', async () => {
  const state = FIXED_LINK;
  pages['/docs/page.html'] = `<!DOCTYPE html><html><body style="margin:0">
<h1>Docs page</h1>
<iframe id="f" title="CRD Studio playground" style="width:400px;height:300px;border:1px solid #ccc"
  src="${PREFIX}index.html?embed&lock=crd&tab=get#${state}"></iframe>
<script>
window.heights = [];
addEventListener('message', (e) => { if (e.data && e.data.type === 'crd-studio:height') { window.heights.push(e.data.height); document.getElementById('f').style.height = e.data.height + 'px'; } });
</script></body></html>`;
  await withBrowser('crd-studio-iframe-', async (context) => {
    const urls = recordRequests(context);
    const page = await context.newPage();
    await page.goto(`${server.origin}/docs/page.html`);
    const frame = page.frameLocator('#f');
    await frame.locator('.studio.embed').waitFor();
    const handle = await (await page.locator('#f').elementHandle()).contentFrame();
    assert.match(await verdict(handle), /^Accepted/);
    assert.equal(await frame.locator('h1').count(), 0, 'no page header');
    assert.equal(await frame.getByRole('tab', { name: 'kubectl get' }).getAttribute('aria-selected'), 'true');
    // The page learns the studio's height.
    await page.waitForFunction(() => window.heights.length > 0 && window.heights.at(-1) > 200);
    // The CRD is read-only.
    const crd = editor(frame, 'CRD');
    assert.equal(await crd.getAttribute('aria-readonly'), 'true');
    await crd.click();
    await page.keyboard.type('zzz');
    assert.ok(!(await crd.textContent()).includes('zzz'), 'the locked CRD took no typing');
    // Editing the object changes the verdict of the embed and writes no autosave.
    const object = editor(frame, 'Object');
    await object.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nembedMarker: 1');
    await handle.waitForFunction(() => document.body.textContent.includes('embedMarker'));
    await page.waitForTimeout(600);
    const stored = await handle.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('crd-studio.')));
    assert.deepEqual(stored, []);
    await screenshot(page, 'embed-iframe-400.png', { fullPage: true });
    // "Open in CRD Studio" carries the current state.
    const [opened] = await Promise.all([
      context.waitForEvent('page'),
      frame.getByRole('link', { name: 'Open in CRD Studio' }).click(),
    ]);
    await opened.waitForLoadState();
    assert.match(await verdict(opened), /^(Accepted|Rejected)/);
    assert.match(await opened.evaluate(() => localStorage.getItem('crd-studio.object')), /embedMarker/);
    for (const u of urls) assert.ok(u.startsWith(server.origin) || u.startsWith('data:') || u.startsWith('blob:'), `request left the origin: ${u}`);
  });
});

test('a share link keeps the version selected in the Stored object tab', async () => {
  await withBrowser('crd-studio-version-', async (context) => {
    await allowClipboard(context, server.origin);
    const page = await context.newPage();
    await page.goto(studioUrl);
    await verdict(page);
    await page.getByRole('combobox', { name: 'Examples' }).selectOption('multi-version');
    // The example's own answer (the buttons of the example before it are there until then).
    await verdict(page);
    const stored = page.getByRole('region', { name: 'Stored object' });
    const served = stored.getByRole('button', { name: /^Served as / }).first();
    await served.waitFor();
    const name = await served.textContent();
    await served.click();
    assert.equal(await served.getAttribute('aria-pressed'), 'true');
    await page.getByRole('button', { name: 'Share' }).click();
    await page.locator('.share-message').filter({ hasText: 'Link copied' }).waitFor();
    const link = page.url();
    const other = await context.newPage();
    await other.goto(link);
    await verdict(other);
    const again = other.getByRole('region', { name: 'Stored object' }).getByRole('button', { name, exact: true });
    await again.waitFor();
    assert.equal(await again.getAttribute('aria-pressed'), 'true');
  });
});

test('a new build deployed to the same place replaces the cached one, offline too', async () => {
  // A copy of dist/ that the test "redeploys": a new page text and a new service worker.
  const { cpSync, mkdtempSync, readFileSync: read, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const copy = mkdtempSync(join(tmpdir(), 'crd-studio-deploy-'));
  cpSync(DIST, copy, { recursive: true });
  const deployed = await serveDist(copy, PREFIX);
  try {
    await withBrowser('crd-studio-update-', async (context) => {
      const page = await context.newPage();
      const url = `${deployed.origin}${PREFIX}`;
      await page.goto(url);
      await verdict(page);
      await page.evaluate(() => navigator.serviceWorker.ready);
      const cacheKeys = () => page.evaluate(() => caches.keys());
      /** Polls the page's caches until `ok(keys)` holds. */
      const untilCaches = async (ok) => {
        for (let waited = 0; waited < TIMEOUT; waited += 200) {
          const keys = await cacheKeys();
          if (ok(keys)) return keys;
          await page.waitForTimeout(200);
        }
        throw new Error(`caches never settled: ${JSON.stringify(await cacheKeys())}`);
      };
      const before = await untilCaches((keys) => keys.length === 1);
      // The next build: another page text, so another service worker version.
      const index = read(join(copy, 'index.html'), 'utf8').replace('<title>CRD Studio</title>', '<title>CRD Studio (build 2)</title>');
      writeFileSync(join(copy, 'index.html'), index);
      const sw = read(join(copy, 'sw.js'), 'utf8').replace(/const VERSION = '([0-9a-f]+)'/, "const VERSION = '$1-2'");
      writeFileSync(join(copy, 'sw.js'), sw);
      await page.reload();
      assert.equal(await page.title(), 'CRD Studio (build 2)');
      // The new worker replaces the old cache...
      await untilCaches((keys) => keys.length === 1 && !before.includes(keys[0]));
      // ...so offline the new build opens.
      await context.setOffline(true);
      await page.reload();
      assert.equal(await page.title(), 'CRD Studio (build 2)');
      assert.match(await verdict(page), /^Accepted/);
    });
  } finally {
    await deployed.close();
    rmSync(copy, { recursive: true, force: true });
  }
});
