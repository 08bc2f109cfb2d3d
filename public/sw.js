// gpufare's service worker: keeps the site's own files so it loads and computes offline.
// Network first (so a new build is picked up at once), the cache when the network is gone.
// It only ever handles this site's own GET requests; there are no others.
const CACHE = 'gpufare-site';
// The lazily loaded chunks of the wasm are listed here by `cargo xtask dist` at build time.
const CHUNKS = [];
const FILES = ['./', 'index.html', 'main.js', 'gpufare_web.js', 'gpufare_web_bg.wasm', 'style.css', 'favicon.svg',
  'plan-worker.js', 'gpufare_plan.js', 'gpufare_plan_bg.wasm', ...CHUNKS];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() =>
        caches.match(request, { ignoreSearch: true }).then((hit) => hit || caches.match('index.html')),
      ),
  );
});
