// CRD Studio's service worker: the studio works offline after the first visit.
//
// `cargo xtask build` writes this file into dist/ with the build's file list and a version
// computed from their contents (the two placeholders below), so every deployed build has a
// byte-different service worker: the browser installs it, it caches the new files, and it
// deletes the caches of older builds. Nothing is ever requested from another origin.
//
// Navigations (index.html, with any query or fragment) go to the network first, so an
// online visitor always gets the newest build, and fall back to the cache offline. Every
// other file of the build is served from the cache first (their names carry content hashes).
const VERSION = '__VERSION__';
const ASSETS = __ASSETS__;
const CACHE = `crd-studio-${VERSION}`;

const scope = new URL(self.registration.scope);
const urls = ASSETS.map((path) => new URL(path, scope).href);
const index = new URL('index.html', scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(urls))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k.startsWith('crd-studio-') && k !== CACHE).map((k) => caches.delete(k))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin || !url.href.startsWith(scope.href)) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request).catch(async () => {
        const cache = await caches.open(CACHE);
        const page = url.pathname.endsWith('/') ? index : url.origin + url.pathname;
        return (await cache.match(page)) ?? (await cache.match(index)) ?? Response.error();
      }),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then(async (cache) => (await cache.match(request, { ignoreSearch: true })) ?? fetch(request)),
  );
});
