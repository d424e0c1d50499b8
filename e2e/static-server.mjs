// A static file server for the end-to-end tests that need more than `cargo xtask serve-dir`:
// dist/ under a sub-path (as on a GitHub Pages project site), and extra pages of the test's
// own (a docs page holding an iframe embed). The files of dist/ carry the studio's
// Content-Security-Policy as a header (the same text as xtask/src/serve_dir.rs, a unit test
// there checks it); the test's own pages carry none.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.bin': 'application/octet-stream',
};

/** The header policy: index.html's meta policy plus frame-ancestors (header-only). */
export const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

/**
 * Serves `dir` under `prefix` (e.g. `/tools/crd-studio/`) and `pages` (path → HTML) at their
 * paths, on 127.0.0.1. Resolves to `{ origin, close() }`.
 */
export async function serveDist(dir, prefix, pages = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (pages[path] !== undefined) {
      res.writeHead(200, { 'content-type': TYPES['.html'] });
      res.end(pages[path]);
      return;
    }
    if (!path.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    let rel = path.slice(prefix.length) || 'index.html';
    if (rel.endsWith('/')) rel += 'index.html';
    const file = normalize(join(dir, rel));
    if (!file.startsWith(normalize(dir))) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        'content-security-policy': CSP,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((r) => server.close(r)) };
}
