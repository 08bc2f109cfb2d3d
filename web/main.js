// Loads the WebAssembly app. Kept in its own file so the Content-Security-Policy needs no inline script.
import init from './gpufare_web.js';
init({ module_or_path: new URL('gpufare_web_bg.wasm', import.meta.url) });
