// Bundles web/editor.js (CodeMirror 6) into static/generated/editor.js, one minified IIFE
// that sets window.CrdEditor. index.html hands that file to Trunk (rel="copy-file").
//
// Usage (from anywhere): node web/build.mjs   — after `npm ci` in web/.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, '..', 'static', 'generated', 'editor.js');
mkdirSync(dirname(outfile), { recursive: true });

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
});
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.log(`editor bundle: ${outfile} (${bytes} bytes, ${Date.now() - started} ms)`);
