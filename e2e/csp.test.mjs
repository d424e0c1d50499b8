// End-to-end tests of the strict page (issue 17, "The page"):
// - the Content-Security-Policy: the studio, the embed demo page and a share link run with
//   zero `securitypolicyviolation` events (a listener installed before any script of the
//   page, with addInitScript) and no console error, while typing, switching every tab,
//   opening the dialogs, loading every example, switching the theme, and while the worker
//   fetches the time-zone database;
// - hostile text: a CRD and objects whose names, descriptions, enum values, rule messages,
//   messageExpression results, printer column names and values, field paths, short names and
//   categories hold HTML and script, loaded through the editors, a share link and an embed's
//   text and attributes: no dialog ever opens, no element or attribute of the payload reaches
//   the DOM, and the payload shows as text.
//
//   BASE_URL=http://127.0.0.1:8765/ DIST_DIR=../dist [SCREENSHOT_DIR=../test-output] node --test csp.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import {
  BASE_URL,
  DIST,
  TABS,
  editor,
  launch,
  openFresh,
  paste,
  recordErrors,
  screenshot,
  serveDist,
  verdict,
  waitFor,
} from './harness.mjs';

const TIMEOUT = 30_000;

let browser;
let context;
/** Everything that went wrong on any page: console and page errors, dialogs. */
const problems = [];
const dialogs = [];

// Runs in every frame before its own scripts: records each CSP violation.
function watchViolations() {
  window.__violations = [];
  document.addEventListener(
    'securitypolicyviolation',
    (e) => window.__violations.push(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`),
    true,
  );
}

before(async () => {
  browser = await launch('crd-studio-e2e-csp-', { timeout: TIMEOUT });
  context = browser.context;
  await context.addInitScript(watchViolations);
});

after(async () => {
  await browser?.close();
});

/** A new page whose console errors, page errors and dialogs are recorded. */
async function newPage() {
  const page = await context.newPage();
  recordErrors(page, problems);
  page.on('dialog', async (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss().catch(() => {});
  });
  return page;
}

/** The violations the page's listener saw (in the page and any same-origin frame). */
async function violations(page) {
  const all = [];
  for (const frame of page.frames()) all.push(...(await frame.evaluate(() => window.__violations ?? []).catch(() => [])));
  return all;
}

/** Waits until the studio (`root`: the page's top bar or an embed's locator) shows a verdict. */
const settled = (page, root = page.locator('.topbar')) => verdict(root, { timeout: TIMEOUT });

async function everyTab(page, root = page) {
  for (const tab of TABS) {
    await root.locator(`#tab-${tab}`).click();
    await root.locator(`#panel-${tab}`).waitFor();
    await page.waitForTimeout(150);
  }
}

/** A share link (`#s1.` + base64url of the raw-deflated JSON state) for `state`. */
function shareLink(base, state) {
  return `${base}#s1.${deflateRawSync(Buffer.from(JSON.stringify(state)), { level: 9 }).toString('base64url')}`;
}

function resetRecords() {
  problems.length = 0;
  dialogs.length = 0;
}

async function assertClean(page, what) {
  assert.deepEqual(await violations(page), [], `${what}: CSP violations`);
  assert.deepEqual(problems, [], `${what}: console errors`);
  assert.deepEqual(dialogs, [], `${what}: dialogs`);
}

// ---------------------------------------------------------------------------------------
// The Content-Security-Policy.

test('the listener sees a violation: an inline script on the studio page is refused', async () => {
  resetRecords();
  const page = await newPage();
  await page.goto(BASE_URL);
  await editor(page, 'Object').waitFor();
  const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content);
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.match(policy, /object-src 'none'/);
  assert.match(policy, /base-uri 'none'/);
  assert.match(policy, /connect-src 'self'/);
  assert.match(policy, /worker-src 'self'/);
  // No inline script at all: every <script> of the page names a file.
  assert.deepEqual(await page.evaluate(() => [...document.scripts].filter((s) => !s.src).map((s) => s.outerHTML)), []);
  // What a broken page would do: an inline script is refused and reported.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__ran = true;';
    document.body.append(s);
  });
  await waitFor(async () => (await violations(page)).length > 0, 'the violation event');
  assert.equal(await page.evaluate(() => window.__ran ?? false), false);
  assert.match((await violations(page))[0], /^script-src(-elem)? blocked inline/);
  await page.close();
});

test('the studio runs under its CSP: typing, every tab, dialogs, every example, theme, share', async () => {
  resetRecords();
  const page = await newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(BASE_URL);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  const object = editor(page, 'Object');
  await object.waitFor();
  await settled(page);
  // The Content-Security-Policy header (our servers send one too).
  const response = await page.request.get(BASE_URL);
  assert.match(response.headers()['content-security-policy'] ?? '', /frame-ancestors 'self'/);

  await object.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n# typed under the CSP\n', { delay: 5 });
  await settled(page);
  await everyTab(page);

  // The dialogs: Reset example (cancelled) and an example over the user's work.
  await page.getByRole('button', { name: 'Reset example' }).click();
  const reset = page.getByRole('dialog', { name: /^Reset to/ });
  await reset.waitFor();
  await reset.getByRole('button', { name: 'Cancel' }).click();
  const select = page.getByRole('combobox', { name: 'Examples' });
  const slugs = await select.locator('option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(slugs.length >= 5, `examples: ${slugs}`);
  for (const slug of slugs) {
    await select.selectOption(slug);
    const load = page.getByRole('dialog', { name: /^Load the example/ });
    if (await load.isVisible().catch(() => false)) await load.getByRole('button', { name: 'Load example' }).click();
    await settled(page);
    await everyTab(page);
  }
  for (const theme of ['dark', 'light', 'system']) {
    await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
    await page.waitForTimeout(100);
  }
  await page.getByRole('button', { name: 'Share' }).click();
  await waitFor(async () => (await page.evaluate(() => location.hash)).startsWith('#s1.'), 'the share link');
  await page.waitForTimeout(300);
  // The service worker registered and the wasm ran in the worker.
  await waitFor(() => page.evaluate(async () => !!(await navigator.serviceWorker.getRegistration())?.active), 'the service worker');
  assert.ok(requests.some((u) => u.endsWith('worker.js')), 'worker.js loaded');
  assert.ok(requests.some((u) => u.endsWith('start.js')), 'start.js loaded');
  await assertClean(page, 'studio');
  await page.close();
});

/** A CRD with a rule that names a time zone: the worker fetches tzdb.bin. */
const TZ_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clocks.tz.example.com
spec:
  group: tz.example.com
  scope: Namespaced
  names: {plural: clocks, singular: clock, kind: Clock}
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
                at:
                  type: string
                  format: date-time
                  x-kubernetes-validations:
                    - rule: "self.getHours('Europe/Paris') < 12"
                      message: must be before noon in Paris
`;
const TZ_OBJECT = `apiVersion: tz.example.com/v1
kind: Clock
metadata:
  name: c
spec:
  at: "2024-01-01T15:00:00Z"
`;

test('a share link opens under the CSP; the worker fetches the time-zone database', async () => {
  resetRecords();
  const page = await newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(shareLink(BASE_URL, { crd: TZ_CRD, object: TZ_OBJECT, tab: 'cel' }));
  await editor(page, 'Object').waitFor();
  await settled(page);
  await page.locator('#tab-problems').click();
  await page.locator('#panel-problems', { hasText: 'must be before noon in Paris' }).waitFor();
  assert.ok(requests.some((u) => u.endsWith('tzdb.bin')), 'tzdb.bin fetched');
  await everyTab(page);
  await assertClean(page, 'share link');
  await page.close();
});

test('the embed demo page runs under its stricter CSP (no inline styles): every playground, every tab', async () => {
  resetRecords();
  const page = await newPage();
  await page.goto(new URL('demo/', BASE_URL).href);
  const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content);
  assert.match(policy, /style-src 'self';/);
  const count = await page.locator('crd-studio').count();
  assert.ok(count >= 3);
  for (let i = 0; i < count; i++) {
    const host = page.locator('crd-studio').nth(i);
    await host.scrollIntoViewIfNeeded();
    await waitFor(async () => (await host.getAttribute('data-state')) === 'ready', `playground ${i} ready`);
    const studio = host.locator('.studio.embed');
    await settled(page, studio);
    await everyTab(page, studio);
    if (i === 0) {
      await editor(studio, 'Object').click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('\n# typed in a playground\n', { delay: 5 });
      await settled(page, studio);
      await host.evaluate((e) => e.setAttribute('theme', 'dark'));
      await page.waitForTimeout(100);
    }
  }
  // The CEL tab's cost bars get their widths without a style attribute (the CSSOM).
  const last = page.locator('crd-studio').nth(count - 1).locator('.studio.embed');
  await last.locator('#tab-cel').click();
  const widths = await last.locator('.bar .fill.some').evaluateAll((fills) => fills.map((f) => [f.style.width, f.getAttribute('style')]));
  assert.ok(widths.length > 0, 'cost bars');
  for (const [width] of widths) assert.match(width, /^\d+(\.\d+)?%$/);
  await assertClean(page, 'embed demo');
  await page.close();
});

// ---------------------------------------------------------------------------------------
// Hostile text.

const P = {
  img: '<img src=x onerror=alert(1)>',
  script: '<script>alert(1)</script>',
  js: 'javascript:alert(1)',
  svg: '"><svg onload=alert(1)>',
};

/** A double-quoted YAML scalar of `s`. */
const q = (s) => JSON.stringify(s);

/** An accepted CRD with the payloads where free text goes. */
const HOSTILE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.xss.example.com
  annotations:
    note: ${q(P.script)}
spec:
  group: xss.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
    - name: v1
      served: true
      storage: true
      additionalPrinterColumns:
        - name: ${q(P.img)}
          type: string
          jsonPath: .spec.title
        - name: ${q(P.svg)}
          type: string
          description: ${q(P.script)}
          jsonPath: .spec.link
      schema:
        openAPIV3Schema:
          type: object
          description: ${q(P.script)}
          properties:
            spec:
              type: object
              description: ${q(P.img)}
              x-kubernetes-validations:
                - rule: "self.title == 'ok'"
                  message: ${q(P.script + ' rule message')}
                - rule: "self.link == 'ok'"
                  messageExpression: ${q(`'${P.svg.replace(/'/g, "\\'")} ' + self.link`)}
              properties:
                title:
                  type: string
                  description: ${q(P.svg)}
                link:
                  type: string
                choice:
                  type: string
                  enum: [${q(P.img)}, ${q(P.js)}]
                ${q(P.svg)}:
                  type: string
                  default: ${q(P.img)}
`;

// The first object passes the schema and fails both rules (CEL runs only then); the second
// breaks the schema (enum, its name), the third has an unknown field (a strict decoding error).
const HOSTILE_OBJECT = `apiVersion: xss.example.com/v1
kind: Widget
metadata:
  name: widget-one
spec:
  title: ${q(P.img)}
  link: ${q(P.js)}
---
apiVersion: xss.example.com/v1
kind: Widget
metadata:
  name: ${q(P.svg)}
spec:
  title: ok
  link: ok
  choice: ${q(P.script)}
---
apiVersion: xss.example.com/v1
kind: Widget
metadata:
  name: widget-three
spec:
  title: ok
  link: ok
  ${q(P.img)}: unknown field
`;

/** A rejected CRD: payloads in short names, categories, a version name and a column type. */
const HOSTILE_BAD_CRD = HOSTILE_CRD.replace(
  '    kind: Widget\n',
  `    kind: Widget\n    shortNames: [${q(P.img)}]\n    categories: [${q(P.svg)}, ${q(P.script)}]\n`,
).replace('          type: string\n          jsonPath: .spec.title', `          type: ${q(P.js)}\n          jsonPath: .spec.title`);

/** What must never be in the DOM: a payload's elements or attributes, anywhere (shadow roots too). */
function domInjections() {
  const bad = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.localName;
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) bad.push(`<${tag} ${a.name}="${a.value}">`);
        if (/^\s*javascript:/i.test(a.value) && /^(href|src|action|formaction|xlink:href|data)$/i.test(a.name)) {
          bad.push(`<${tag} ${a.name}="${a.value}">`);
        }
      }
      if (tag === 'img' || tag === 'iframe' || tag === 'object' || tag === 'embed') bad.push(`<${tag}>`);
      if (tag === 'script' && /alert/.test(el.textContent)) bad.push('<script>alert</script>');
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return bad;
}

async function assertNoInjection(page, where) {
  assert.deepEqual(await page.evaluate(domInjections), [], `${where}: payload elements in the DOM`);
  assert.deepEqual(dialogs, [], `${where}: dialogs`);
  assert.equal(await page.evaluate(() => window.__xss ?? false), false, where);
}

/** The visible text of the studio (page or embed), shadow roots included. */
async function visibleText(root) {
  return root.evaluate((el) => el.innerText);
}

/** Visits every tab and the hover of the first finding of each editor, checking the DOM each time. */
async function visitAll(page, root, where) {
  for (const tab of TABS) {
    await root.locator(`#tab-${tab}`).click();
    await root.locator(`#panel-${tab}`).waitFor();
    await page.waitForTimeout(200);
    await assertNoInjection(page, `${where}, ${tab}`);
  }
  for (const range of [root.locator('.cm-lintRange-error').first(), root.locator('.cm-lintRange-warning').first()]) {
    if (!(await range.count())) continue;
    await range.scrollIntoViewIfNeeded();
    await range.hover();
    await root.locator('.cm-tooltip-lint, .cm-tooltip').first().waitFor({ timeout: 5000 }).catch(() => {});
    await assertNoInjection(page, `${where}, hover`);
  }
  for (const gutter of await root.locator('.cm-lint-marker').all().then((all) => all.slice(0, 2))) {
    await gutter.hover().catch(() => {});
    await page.waitForTimeout(300);
    await assertNoInjection(page, `${where}, gutter hover`);
  }
  // Close any tooltip (it would cover the tabs).
  await page.mouse.move(1, 1);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
}

test('hostile text typed into the editors renders as text on every tab', async () => {
  resetRecords();
  const page = await newPage();
  await openFresh(page);
  await settled(page);
  await paste(page, 'CRD', HOSTILE_CRD);
  await paste(page, 'Object', HOSTILE_OBJECT);
  await settled(page);
  await visitAll(page, page, 'editors');
  await page.locator('#tab-problems').click();
  const problemsText = await visibleText(page.locator('#panel-problems'));
  assert.ok(problemsText.includes(`${P.script} rule message`), `rule message as text:\n${problemsText}`);
  assert.ok(problemsText.includes(`${P.svg} ${P.js}`), 'messageExpression result as text');
  assert.ok(problemsText.includes(P.img), 'enum values / field paths as text');
  await page.locator('#tab-get').click();
  const getText = await visibleText(page.locator('#panel-get'));
  assert.ok(getText.includes(P.img), `printer column value as text:\n${getText}`);
  await page.locator('#tab-stored').click();
  assert.ok((await visibleText(page.locator('#panel-stored'))).includes('alert(1)'), 'stored object as text');
  await page.locator('#tab-cel').click();
  assert.ok((await visibleText(page.locator('#panel-cel'))).includes(`${P.script} rule message`), 'CEL tab: the message');
  await screenshot(page, 'csp-hostile-1280.png');
  await page.setViewportSize({ width: 360, height: 800 });
  await page.locator('#tab-problems').click();
  await screenshot(page, 'csp-hostile-360.png');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The rejected CRD: short names, categories, a column type.
  await paste(page, 'CRD', HOSTILE_BAD_CRD);
  await settled(page);
  await visitAll(page, page, 'rejected CRD');
  await page.locator('#tab-problems').click();
  const rejected = await visibleText(page.locator('#panel-problems'));
  assert.ok(rejected.includes(P.img) && rejected.includes('shortNames'), `short names as text:\n${rejected}`);
  assert.ok(rejected.includes('categories'), 'categories');
  await assertNoInjection(page, 'rejected CRD');
  assert.deepEqual(await violations(page), []);
  await page.close();
});

test('hostile text through a share link (texts, tab, version, selector, conversion) renders as text', async () => {
  resetRecords();
  const page = await newPage();
  const state = {
    // Two versions and a conversion webhook, so the Conversion tab checks the response.
    crd: HOSTILE_CRD.replace(
      '  versions:\n',
      '  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: ["v1"]\n' +
        '      clientConfig:\n        service: {namespace: ns, name: hook, path: /convert}\n  versions:\n',
    ).replace(
      /\n {6}schema:\n([\s\S]*)$/,
      (m, rest) => `\n      schema:\n${rest}    - name: v2\n      served: true\n      storage: false\n      schema:\n${rest}`,
    ),
    object: HOSTILE_OBJECT,
    oldObject: HOSTILE_OBJECT.split('---')[0].replace(P.img, P.svg),
    tab: P.img,
    version: P.svg,
    kubernetesVersion: P.script,
    fieldSelector: `metadata.name=${P.svg}`,
    conversionTarget: 'v2',
    webhookResponse: `{"apiVersion": "${P.js}", "kind": ${JSON.stringify(P.svg)}, "response": {"uid": ${JSON.stringify(P.img)}, "result": {"status": "Failure", "message": ${JSON.stringify(P.script)}}}}`,
    mappings: `from: v1\nto: v2\nrules:\n  - move: {from: .spec.title, to: ${q('.spec.' + P.img)}}\n  - set: {path: .spec.link, value: ${q(P.script)}}\n`,
  };
  await page.goto(shareLink(BASE_URL, state));
  await editor(page, 'Object').waitFor();
  await settled(page);
  await visitAll(page, page, 'share link');
  // The selector field holds the payload as a value.
  await page.locator('#tab-get').click();
  const getPanel = await visibleText(page.locator('#panel-get'));
  assert.ok(getPanel.includes('alert(1)'), `kubectl get shows the payload as text:\n${getPanel}`);
  await page.locator('#tab-conversion').click();
  const conversion = await visibleText(page.locator('#panel-conversion'));
  assert.ok(conversion.includes(`.spec.${P.img}`), `the Conversion tab shows the payload as text:\n${conversion}`);
  assert.equal(await page.getByRole('textbox', { name: 'Webhook response' }).inputValue(), state.webhookResponse);
  await screenshot(page, 'csp-hostile-conversion.png');
  // A damaged link whose error text quotes what it read.
  await page.goto(`${BASE_URL}#s1.${Buffer.from(`{"crd": 1, "${P.img}": "${P.svg}"}`).toString('base64url')}`);
  await page.waitForTimeout(500);
  await page.goto(`${BASE_URL}#s1.${deflateRawSync(Buffer.from(`{"crd": ${JSON.stringify(P.img)}, "tab": 7}`)).toString('base64url')}`);
  await page.reload();
  await editor(page, 'Object').waitFor();
  await page.waitForTimeout(500);
  await assertNoInjection(page, 'damaged share link');
  assert.deepEqual(await violations(page), []);
  await page.close();
});

test('hostile text in an embed\'s text and attributes renders as text', async () => {
  resetRecords();
  const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const demoPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'";
  const docs = `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="${demoPolicy}">
<script type="module" src="/crd-studio/crd-studio-embed.js"></script></head><body>
<crd-studio tab="${escape(P.img)}" field-validation="${escape(P.svg)}" kubernetes-version="${escape(P.script)}" lock="${escape(P.js)}" theme="${escape(P.svg)}">
${escape(HOSTILE_CRD)}---
${escape(HOSTILE_OBJECT)}</crd-studio>
</body></html>`;
  const server = await serveDist(DIST, '/crd-studio/', { '/docs/hostile.html': docs });
  try {
    const page = await newPage();
    await page.goto(`${server.origin}/docs/hostile.html`);
    const host = page.locator('crd-studio');
    await waitFor(async () => (await host.getAttribute('data-state')) === 'ready', 'the playground');
    const studio = host.locator('.studio.embed');
    await settled(page, studio);
    await visitAll(page, studio, 'embed');
    await studio.locator('#tab-problems').click();
    const text = await visibleText(studio.locator('#panel-problems'));
    assert.ok(text.includes(`${P.script} rule message`), `embed: rule message as text:\n${text}`);
    // The attributes are not understood: console warnings, not errors.
    assert.deepEqual(problems, []);
    assert.deepEqual(await violations(page), []);
    await page.close();
  } finally {
    await server.close();
  }
});
