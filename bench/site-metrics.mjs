// Measures the built site in headless Chromium: gzipped wasm size, time to the first interactive
// render (navigation start -> the recommendation is on screen) and the latency of a recompute
// (an input event -> the recommendation updated), median of several edits.
// Usage: node bench/site-metrics.mjs http://127.0.0.1:8080/ dist/   (after `cargo xtask serve`)
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/e2e/package.json'));
const { chromium } = require('playwright-core');
const [url = 'http://127.0.0.1:8080/', dist = 'dist'] = process.argv.slice(2);

const wasm = readFileSync(join(dist, 'gpufare_web_bg.wasm'));
const js = readFileSync(join(dist, 'gpufare_web.js'));
const kb = (n) => (n / 1024).toFixed(1);
console.log(`wasm: ${kb(wasm.length)} KiB, gzipped ${kb(gzipSync(wasm, { level: 9 }).length)} KiB; js glue gzipped ${kb(gzipSync(js, { level: 9 }).length)} KiB`);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const firsts = [];
const edits = [];
for (let round = 0; round < 5; round++) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.locator('#recommended').waitFor();
  firsts.push(await page.evaluate(() => performance.now()));
  for (let i = 0; i < 5; i++) {
    edits.push(await page.evaluate((hours) => new Promise((resolve) => {
      const target = document.querySelector('#decision');
      const input = document.querySelector('#work-hours');
      const start = performance.now();
      const observer = new MutationObserver(() => { observer.disconnect(); resolve(performance.now() - start); });
      observer.observe(target, { subtree: true, childList: true, characterData: true });
      input.value = String(hours);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }), 7 + round + i * 3));
  }
  await page.close();
}
await browser.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`first interactive render: median ${median(firsts).toFixed(0)} ms (of ${firsts.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`recompute after an edit: median ${median(edits).toFixed(1)} ms, max ${Math.max(...edits).toFixed(1)} ms (${edits.length} edits)`);
