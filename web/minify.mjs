// Minifies the page's own scripts and style sheet in a built dist/ in place (esbuild's
// transform: whitespace, names and syntax; module syntax and property names stay as they are):
// the wasm-bindgen glue, start.js, worker.js, crd-studio-embed.js and Trunk's CSS. The editor
// bundle is minified when it is built (build.mjs). Where index.html names a file with an
// `integrity` hash (Trunk's CSS link), the hash is recomputed. `cargo xtask build` runs this
// after the wasm split and before it measures the payload.
//
// Usage: node web/minify.mjs DIST
import { createHash } from 'node:crypto';
import { transform } from 'esbuild';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = process.argv[2];
if (!dist) {
  console.error('usage: node minify.mjs DIST');
  process.exit(2);
}
let before = 0;
let after = 0;
const names = readdirSync(dist).filter(
  (n) => (n.endsWith('.js') || n.endsWith('.css')) && n !== 'editor.js' && n !== 'sw.js',
);
for (const name of names) {
  const path = join(dist, name);
  const source = readFileSync(path, 'utf8');
  const loader = name.endsWith('.css') ? 'css' : 'js';
  const { code } = await transform(source, { loader, minify: true, legalComments: 'none' });
  writeFileSync(path, code);
  before += Buffer.byteLength(source);
  after += Buffer.byteLength(code);
}
const indexPath = join(dist, 'index.html');
let index = readFileSync(indexPath, 'utf8');
for (const name of names) {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const link = new RegExp(`(href="\\./${escaped}"[^>]*integrity=")sha384-[A-Za-z0-9+/=]+"`);
  const hash = createHash('sha384').update(readFileSync(join(dist, name))).digest('base64');
  index = index.replace(link, `$1sha384-${hash}"`);
}
writeFileSync(indexPath, index);
console.log(`minified ${names.length} files in ${dist}: ${before} bytes to ${after}`);
