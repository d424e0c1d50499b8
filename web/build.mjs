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
const patches = [
  {
    file: /[\\/]@codemirror[\\/]language[\\/]dist[\\/]index\.js$/,
    from: 'Math.min(this.chunkBudget, 100 /* Work.Slice */,',
    to: 'Math.min(this.chunkBudget, 30 /* Work.Slice, cut by web/build.mjs */,',
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
