// Where a keystroke's time goes: types like the browser benchmark (`bench.mjs`) under a
// Chrome performance trace (CDP Tracing) and prints, per keystroke, the main thread's and the
// worker's tasks from the keydown to the frame that showed the new findings.
//
//   DIST_DIR=dist [TRACE_CASE=crontab|argo|argo-crd|argo-schema] [BENCH_KEYS=8] node latency-trace.mjs
//
// WORKER_PROFILE=1 prints the worker's time by function (the trace's own CPU profile).
// PROFILE=1 adds a sampling profile: the time by function per kind of task, and each task
// over LONG_MS (40) on its own.
//
// A tool for finding the slow piece, not a benchmark: the trace itself costs time.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch, serveDist, DIST } from './harness.mjs';

const CORPUS = resolve(process.env.CORPUS ?? '../../shared/corpus');
const KEYS = Number(process.env.BENCH_KEYS ?? 8);
const CASE = process.env.TRACE_CASE ?? 'crontab';
// The line of the field typed in, for the schema case (else the first line).
let schemaLine = -1;

const { origin, close: stop } = await serveDist(DIST, '/trace/');
const url = `${origin}/trace/`;
const browser = await launch('crd-studio-trace-', { timeout: 120_000 });
browser.context.setDefaultTimeout(120_000);
try {
  const page = await browser.context.newPage();
  await page.goto(url);
  if (CASE.startsWith('argo')) {
    let crd = readFileSync(join(CORPUS, 'crds/argo-workflows/full-argoproj.io_workflows.yaml'), 'utf8');
    if (CASE === 'argo-schema') {
      // As the benchmark's schema case: a field `z` inside the `spec` property's schema.
      const lines = crd.split('\n');
      schemaLine = lines.findIndex((l) => l === '            description: WorkflowSpec is the specification of a Workflow.');
      lines.splice(schemaLine, 0, '            z: 1');
      crd = lines.join('\n');
    }
    const object = readFileSync(join(CORPUS, 'objects/argo-workflows/examples__steps.yaml'), 'utf8');
    await page.evaluate((t) => {
      localStorage.setItem('crd-studio.crd', JSON.stringify(t.crd));
      localStorage.setItem('crd-studio.object', JSON.stringify(t.object));
      localStorage.setItem('crd-studio.old-object', JSON.stringify(''));
    }, { crd, object });
  } else {
    await page.evaluate(() => localStorage.clear());
  }
  await page.reload();
  const label = CASE === 'argo-crd' || CASE === 'argo-schema' ? 'CRD' : 'Object';
  const ed = page.locator(`.cm-content[aria-label="${label}"]`);
  await ed.waitFor();
  await page.waitForFunction(() => /Accepted|Rejected/.test(document.querySelector('[role="status"]')?.textContent ?? ''));
  await ed.click();
  await page.keyboard.press('Control+Home');
  if (schemaLine < 0) {
    await page.keyboard.type('z: 1\n');
    await page.waitForFunction(() => document.querySelector('[role="region"][aria-label="Problems"]')?.textContent.includes('"z"'));
    await page.keyboard.press('Control+Home');
  } else {
    await page.waitForFunction(() => document.querySelector('[role="region"][aria-label="Problems"]')?.textContent.includes('spec.z"'));
    for (let i = 0; i < schemaLine; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('Home');
  }
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);

  const cdp = await browser.context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  if (process.env.PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
  }
  await cdp.send('Tracing.start', {
    categories: 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing,blink' +
      (process.env.WORKER_PROFILE ? ',disabled-by-default-v8.cpu_profiler' : ''),
    transferMode: 'ReportEvents',
  });
  await page.evaluate(() => {
    window.__marks = [];
    document.addEventListener('keydown', () => performance.mark('keydown'), true);
    new MutationObserver(() => {
      const r = document.querySelector('[role="region"][aria-label="Problems"]');
      if (window.__expect && r.textContent.includes(window.__expect)) {
        window.__expect = null;
        performance.mark('shown');
        requestAnimationFrame(() => performance.mark('frame'));
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  let name = 'z';
  for (let i = 0; i < KEYS; i++) {
    const key = 'abcdefghijklmnopqrstuvwxyz'[i % 26];
    name += key;
    await page.evaluate((e) => (window.__expect = e), schemaLine < 0 ? `"${name}"` : `spec.${name}"`);
    await page.keyboard.press(key);
    await page.waitForFunction(() => window.__expect === null);
    await page.waitForTimeout(120);
  }
  await cdp.send('Tracing.end');
  await done;
  const threads = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  if (process.env.PROFILE) {
    // The main thread's JS and wasm self time by function, while typing.
    const { profile } = await cdp.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    const dt = profile.timeDeltas;
    profile.samples.forEach((id, i) => {
      const n = byId.get(id);
      const f = n.callFrame;
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      self.set(key, (self.get(key) ?? 0) + (dt[i + 1] ?? 0));
    });
    // Inclusive time: walk parents.
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const incl = new Map();
    profile.samples.forEach((id, i) => {
      const seen = new Set();
      for (let x = id; x !== undefined; x = parent.get(x)) {
        const f = byId.get(x).callFrame;
        const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
        if (seen.has(key)) continue;
        seen.add(key);
        incl.set(key, (incl.get(key) ?? 0) + (dt[i + 1] ?? 0));
      }
    });
    // Per kind of task: the samples inside the keydown tasks, the reply tasks and the frames.
    const kinds = new Map();
    const mainTasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && /CrRendererMain/.test(threads.get(`${e.pid}:${e.tid}`) ?? ''));
    const kindOf = (t) => {
      const kids = events.filter((e) => e.tid === t.tid && e.pid === t.pid && e.ts >= t.ts && e.ts <= t.ts + t.dur && e.ph === 'X');
      if (kids.some((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'keypress')) return 'keystroke';
      if (kids.some((e) => e.name === 'HandlePostMessage')) return 'reply';
      if (kids.some((e) => e.name === 'FireAnimationFrame' || e.name === 'Paint')) return 'frame';
      return 'other';
    };
    const spans = mainTasks.filter((t) => t.dur > 300).map((t) => [t.ts, t.ts + t.dur, kindOf(t)]);
    let ts = profile.startTime;
    profile.samples.forEach((id, i) => {
      ts += dt[i] ?? 0;
      const span = spans.find(([a, b]) => ts >= a && ts <= b);
      const kind = span ? span[2] : 'none';
      if (!kinds.has(kind)) kinds.set(kind, new Map());
      const m = kinds.get(kind);
      const seen = new Set();
      for (let x = id; x !== undefined; x = parent.get(x)) {
        const f = byId.get(x).callFrame;
        const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
        if (seen.has(key)) continue;
        seen.add(key);
        m.set(key, (m.get(key) ?? 0) + (dt[i + 1] ?? 0));
      }
    });
    const topN = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${(v / 1000).toFixed(1).padStart(8)} ms  ${k}`).join('\n');
    for (const [kind, m] of kinds) if (kind !== 'none') console.log(`inclusive, ${kind} tasks:\n` + topN(m, 45));
    // Each main-thread task over LONG_MS (40) on its own: where its time went.
    const longMs = Number(process.env.LONG_MS ?? 40);
    for (const [a, b, kind] of spans.filter(([a, b]) => b - a > longMs * 1000)) {
      const m = new Map();
      const own = new Map();
      let t = profile.startTime;
      profile.samples.forEach((id, i) => {
        t += dt[i] ?? 0;
        if (t < a || t > b) return;
        const f0 = byId.get(id).callFrame;
        const k0 = `${f0.functionName || '(anon)'} ${f0.url.split('/').pop()}:${f0.lineNumber}:${f0.columnNumber}`;
        own.set(k0, (own.get(k0) ?? 0) + (dt[i + 1] ?? 0));
        const seen = new Set();
        for (let x = id; x !== undefined; x = parent.get(x)) {
          const f = byId.get(x).callFrame;
          const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
          if (seen.has(key)) continue;
          seen.add(key);
          m.set(key, (m.get(key) ?? 0) + (dt[i + 1] ?? 0));
        }
      });
      console.log(`long ${kind} task, ${((b - a) / 1000).toFixed(1)} ms, inclusive:\n` + topN(m, 30));
      console.log('  self:\n' + topN(own, 15));
    }
    const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `  ${(v / 1000).toFixed(1).padStart(8)} ms  ${k}`).join('\n');
    if (process.env.TOTALS) {
      console.log('self time, main thread:\n' + top(self));
      console.log('inclusive time, main thread:\n' + top(incl));
    }
  }

  const tname = (e) => threads.get(`${e.pid}:${e.tid}`) ?? `${e.tid}`;
  if (process.env.WORKER_PROFILE) {
    // The worker's samples: the trace's CPU profile chunks (posted from V8's profiler
    // thread) whose `Profile` event is on the worker thread.
    const nodes = new Map();
    const parent = new Map();
    const self = new Map();
    const incl = new Map();
    const workerProfiles = new Set(events.filter((e) => e.name === 'Profile' && /DedicatedWorker/.test(tname(e))).map((e) => `${e.pid}:${e.id}`));
    for (const e of events.filter((e) => e.name === 'ProfileChunk' && workerProfiles.has(`${e.pid}:${e.id}`))) {
      const cp = e.args?.data?.cpuProfile ?? {};
      for (const n of cp.nodes ?? []) {
        nodes.set(`${e.id}:${n.id}`, n.callFrame);
        if (n.parent !== undefined) parent.set(`${e.id}:${n.id}`, `${e.id}:${n.parent}`);
      }
      const dt = e.args?.data?.timeDeltas ?? [];
      (cp.samples ?? []).forEach((id, i) => {
        const key = (f) => `${f.functionName || '(anon)'} ${(f.url ?? '').split('/').pop()}`;
        const d = dt[i] ?? 0;
        const f0 = nodes.get(`${e.id}:${id}`);
        if (!f0) return;
        self.set(key(f0), (self.get(key(f0)) ?? 0) + d);
        const seen = new Set();
        for (let x = `${e.id}:${id}`; x !== undefined; x = parent.get(x)) {
          const f = nodes.get(x);
          if (!f) break;
          const k = key(f);
          if (seen.has(k)) continue;
          seen.add(k);
          incl.set(k, (incl.get(k) ?? 0) + d);
        }
      });
    }
    const topw = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 60).map(([k, v]) => `  ${(v / 1000).toFixed(1).padStart(8)} ms  ${k}`).join('\n');
    console.log('worker self time:\n' + topw(self));
    console.log('worker inclusive time:\n' + topw(incl));
  }
  const marks = events.filter((e) => e.cat?.includes('blink.user_timing') && ['keydown', 'shown', 'frame'].includes(e.name))
    .sort((a, b) => a.ts - b.ts);
  const mainPid = marks[0]?.pid;
  const relevant = (e) => e.pid === mainPid && e.ph === 'X' && e.dur !== undefined;
  const tasks = events.filter((e) => relevant(e) && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask'))
    .filter((e) => /CrRendererMain|DedicatedWorker/.test(tname(e)));
  const inner = events.filter((e) => relevant(e) && /CrRendererMain|DedicatedWorker/.test(tname(e)) &&
    ['EventDispatch', 'FunctionCall', 'TimerFire', 'FireAnimationFrame', 'Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize',
      'HitTest', 'ParseHTML', 'MajorGC', 'MinorGC', 'V8.GC_SCAVENGER', 'BlinkGC.AtomicPhase', 'v8.callFunction', 'UpdateLayer', 'Commit', 'ScheduleStyleRecalculation', 'RunMicrotasks', 'v8.run', 'ProfileCall', 'XHRReadyStateChange', 'HandlePostMessage', 'BeginMainThreadFrame', 'UpdateLayerTree', 'CompositeLayers'].includes(e.name));
  let k = 0;
  for (let i = 0; i < marks.length; i++) {
    if (marks[i].name !== 'keydown') continue;
    const t0 = marks[i].ts;
    const end = marks.slice(i + 1).find((m) => m.name === 'frame' || m.name === 'keydown');
    if (!end || end.name !== 'frame') continue;
    const shown = marks.slice(i + 1).find((m) => m.name === 'shown');
    k++;
    console.log(`keystroke ${k}: shown ${((shown.ts - t0) / 1000).toFixed(1)} ms, frame ${((end.ts - t0) / 1000).toFixed(1)} ms`);
    for (const t of tasks.filter((t) => t.ts + t.dur > t0 - 2000 && t.ts < end.ts).sort((a, b) => a.ts - b.ts)) {
      if (t.dur < 300) continue;
      const kids = inner.filter((e) => e.tid === t.tid && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur >= 200)
        .map((e) => `${e.name}${e.args?.data?.type ? ':' + e.args.data.type : ''}${e.args?.data?.functionName ? ':' + e.args.data.functionName : ''} ${(e.dur / 1000).toFixed(1)}`);
      console.log(`  ${tname(t).padEnd(22)} +${((t.ts - t0) / 1000).toFixed(1).padStart(6)} ${(t.dur / 1000).toFixed(1).padStart(6)} ms  ${kids.slice(0, 12).join(', ')}`);
    }
  }
} finally {
  await browser.close();
  await stop();
}
