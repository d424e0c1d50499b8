// Bundles web/editor.js (CodeMirror 6) into static/generated/editor.js, one minified IIFE
// that sets window.CrdEditor. index.html hands that file to Trunk (rel="copy-file").
//
// Usage (from anywhere): node web/build.mjs   — after `npm ci` in web/.
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, '..', 'static', 'generated', 'editor.js');
mkdirSync(dirname(outfile), { recursive: true });

// CodeMirror's background parse (the language package's ParseWorker) works in slices of up
// to 100 ms where the browser has `navigator.scheduling.isInputPending` (Chromium), which
// only stops it for input: in a 2.8 MB CRD, after a jump to its end or after loading, that
// is a train of 100 ms main-thread tasks that hold back the worker's answers and frames.
// Its slices are cut to 30 ms (the pinned version's constant; the build fails if it moved).
//
// A diagnostic's underline (the lint package's mark) grows with a character typed at its end.
// The lint package makes it end-exclusive, so a keystroke at the end of a flagged word (the
// usual case: typing a field's name) splits the mark off the text the browser just typed
// into, CodeMirror redraws the line and puts the caret back (a forced layout), and when the
// worker's answer flags the longer word CodeMirror redraws the line once more, in the answer's
// frame. With the mark end-inclusive the typed character stays in it, the browser's own DOM
// edit stands, and the answer's mark, over the same range, changes no DOM (browser benchmark
// traces, CronTab: the editor's update per keystroke about 4 -> 2 ms, setting the answer's
// diagnostics about 2.5 -> 0.7 ms). Until the answer, the underline covers the typed
// character, as it will after.
const patches = [
  {
    file: /[\\/]@codemirror[\\/]language[\\/]dist[\\/]index\.js$/,
    from: 'Math.min(this.chunkBudget, 100 /* Work.Slice */,',
    to: 'Math.min(this.chunkBudget, 30 /* Work.Slice, cut by web/build.mjs */,',
  },
  {
    file: /[\\/]@codemirror[\\/]lint[\\/]dist[\\/]index\.js$/,
    from: 'inclusiveEnd: active.some(a => a.to > to)',
    to: 'inclusiveEnd: true /* end-inclusive, web/build.mjs */',
  },
];
const patch = {
  name: 'patch',
  setup(b) {
    for (const p of patches) {
      b.onLoad({ filter: p.file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(p.from)) throw new Error(`${args.path}: \`${p.from}\` not found`);
        return { contents: text.replace(p.from, p.to), loader: 'js' };
      });
    }
  },
};

const started = Date.now();
const result = await build({
  entryPoints: [join(here, 'editor.js')],
  outfile,
  bundle: true,
  format: 'iife',
  minify: true,
  target: ['es2020'],
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
  plugins: [patch],
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`editor bundle: ${outfile} (${bytes} bytes, ${Date.now() - started} ms)`);
