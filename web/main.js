// Loads the WebAssembly app, and registers the service worker that lets it work offline. Kept in
// its own file so the Content-Security-Policy needs no inline script.
import init from './gpufare_web.js';
init({ module_or_path: new URL('gpufare_web_bg.wasm', import.meta.url) });
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').catch(() => {});
}
