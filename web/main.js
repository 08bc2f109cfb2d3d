// Loads the WebAssembly app, then registers the service worker that lets it work offline (after
// the first render, so caching the site's files does not compete with it). Kept in its own file
// so the Content-Security-Policy needs no inline script.
import init from './gpufare_web.js';

const registerWorker = () => {
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('sw.js').catch(() => {});
  }
};
init({ module_or_path: new URL('gpufare_web_bg.wasm', import.meta.url) }).finally(registerWorker);
