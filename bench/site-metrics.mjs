// Measures the built site in headless Chromium: gzipped wasm size, time to the first interactive
// render (navigation start -> the first frame painted with the recommendation), and for an edit both
// the time the main thread holds the page (the input event -> the next frame painted) and the
// latency of the recompute (the input event -> the frame painted with the updated recommendation,
// which the page computes in a Web Worker), median and P95 of several edits, and the first answer
// (the input event -> the frame painted with the provisional recommendation of the closed forms,
// priced on the page, or by the quick worker for large catalogs; counted only for edits where it
// came before the full plan), what the full plan's arrival costs the main thread (the
// worker's message to the painted frame), and the floor under all of these: an input event that
// changes nothing on screen, to the next painted frame.
// Usage: node bench/site-metrics.mjs [--link MBIT,RTT_MS] [--rounds N] [--json] http://127.0.0.1:8080/ dist/
//   (after `cargo xtask serve`). --rounds: page loads, 5 edits each (default 9); --json: a last line
//   with the figures as one JSON object, which `cargo xtask bench` reads.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/e2e/package.json'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
// `--link MBIT,RTT_MS` loads the page over an emulated link (Chromium's network throttling) instead
// of bare loopback, where the download takes almost no time and only compiling and rendering count.
const linkAt = args.indexOf('--link');
const link = linkAt >= 0 ? args.splice(linkAt, 2)[1].split(',').map(Number) : null;
if (link && (link.length !== 2 || link.some((x) => !(x > 0)))) {
  console.error('--link wants MBIT,RTT_MS, for example --link 10,40');
  process.exit(2);
}
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 9;
if (!(Number.isInteger(rounds) && rounds > 0)) {
  console.error('--rounds wants a whole number of page loads, for example --rounds 3');
  process.exit(2);
}
const jsonAt = args.indexOf('--json');
const json = jsonAt >= 0 && args.splice(jsonAt, 1).length > 0;
const [url = 'http://127.0.0.1:8080/', dist = 'dist'] = args;

const wasm = readFileSync(join(dist, 'gpufare_web_bg.wasm'));
const js = readFileSync(join(dist, 'gpufare_web.js'));
const kb = (n) => (n / 1024).toFixed(1);
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
console.log(`first wasm module (all the first render loads): ${kb(wasm.length)} KiB, gzipped ${kb(gz(wasm))} KiB; js glue gzipped ${kb(gz(js))} KiB`);
// The chunks split off by `cargo xtask dist`, each fetched when its part of the page is first used.
const chunks = readdirSync(dist).filter((f) => f.endsWith('.wasm') && !['gpufare_web_bg.wasm', 'gpufare_plan_bg.wasm'].includes(f)).sort();
let chunkTotal = 0;
for (const name of chunks) {
  const bytes = gz(readFileSync(join(dist, name)));
  chunkTotal += bytes;
  console.log(`  chunk ${name}: gzipped ${kb(bytes)} KiB`);
}
// A build from before the split (or one made without it) has no chunks and no loader.
const loader = join(dist, '__wasm_split.js');
const loaderKb = existsSync(loader) ? kb(gz(readFileSync(loader))) : '0.0';
console.log(`chunks loaded on first use: ${chunks.length}, gzipped ${kb(chunkTotal)} KiB in all; loader js gzipped ${loaderKb} KiB`);
// The plan worker's module (built for speed), loaded after the first render.
const workerPath = join(dist, 'gpufare_plan_bg.wasm');
const worker = existsSync(workerPath) ? readFileSync(workerPath) : null;
if (worker) console.log(`plan worker module (loaded after the first render): ${kb(worker.length)} KiB, gzipped ${kb(gz(worker))} KiB`);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const firsts = [];
const edits = [];
const frames = [];
const firsts_shown = [];
const arrivals = [];
const noops = [];
for (let round = 0; round < rounds; round++) {
  const page = await browser.newPage();
  if (link) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: link[1],
      downloadThroughput: (link[0] * 1e6) / 8,
      uploadThroughput: (link[0] * 1e6) / 8,
    });
  }
  // Stamp from inside the page the first frame painted with the recommendation in it (a task
  // queued from the frame's requestAnimationFrame runs after that frame's paint), so the figure
  // does not include Playwright's polling and round trips.
  await page.addInitScript(() => {
    // When the plan worker's last answer arrived: a listener added before the page's own
    // handler, so the time includes reading the answer back and rebuilding the views.
    const Native = window.Worker;
    if (Native) {
      window.Worker = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener('message', (event) => {
            if (event.data && 'plan' in event.data) window.__planArrived = performance.now();
          });
        }
      };
    }
    new MutationObserver((_, observer) => {
      if (document.getElementById('recommended')) {
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => { window.__firstRender = performance.now(); }, 0));
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__firstRender !== undefined);
  firsts.push(await page.evaluate(() => window.__firstRender));
  // A second for the page to settle, as a person reads before typing: the plan worker loads and
  // warms up after the first paint, and the edits measure typing, not loading.
  await page.waitForTimeout(1000);
  for (let i = 0; i < 5; i++) {
    // Each time is stamped after a paint (a task queued from a requestAnimationFrame). The
    // recommendation counts as updated when the page marks its plan current again (`data-plan`);
    // a build without the worker has no mark and counts the first change under #decision.
    const [frame, recompute, provisional, arrival] = await page.evaluate((hours) => new Promise((resolve) => {
      const app = document.querySelector('#app');
      const input = document.querySelector('#work-hours');
      const painted = (then) => requestAnimationFrame(() => setTimeout(() => then(performance.now() - start), 0));
      let frame = null;
      let done = null;
      let first = null;
      let arrival = null;
      const finish = () => { if (frame !== null && done !== null) resolve([frame, done, first, arrival]); };
      const observer = new MutationObserver(() => {
        if (first === null && document.querySelector('#first-answer')) {
          first = -1;
          painted((ms) => { first = ms; });
        }
        const marked = app.dataset.plan !== undefined;
        if (marked && app.dataset.plan !== 'current') return;
        observer.disconnect();
        painted((ms) => {
          done = ms;
          // The plan's answer came during this edit: its cost to the main thread, from the
          // message to the painted frame.
          if (window.__planArrived > start) arrival = performance.now() - window.__planArrived;
          finish();
        });
      });
      observer.observe(app, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-plan'] });
      const start = performance.now();
      input.value = String(hours);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      painted((ms) => { frame = ms; finish(); });
    }), 7 + round + i * 3);
    frames.push(frame);
    edits.push(recompute);
    if (provisional !== null && provisional >= 0) firsts_shown.push(provisional);
    if (arrival !== null) arrivals.push(arrival);
  }
  // The floor under the main thread's figure: an input event that changes nothing on screen (on
  // a detached field), to the next painted frame, a few times a page, spaced like the edits.
  for (let i = 0; i < 5; i++) {
    await page.waitForTimeout(40 + i * 7);
    noops.push(await page.evaluate(() => new Promise((resolve) => {
      const start = performance.now();
      document.createElement('input').dispatchEvent(new Event('input', { bubbles: true }));
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
    })));
  }
  await page.close();
}
await browser.close();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The nearest-rank percentile: the smallest sample with at least p % of the samples at or below it.
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
console.log(`first interactive render${link ? ` over a ${link[0]} Mbit/s link with ${link[1]} ms round trips` : ''}: median ${median(firsts).toFixed(0)} ms (of ${firsts.map((x) => x.toFixed(0)).join(', ')})`);
console.log(`main thread per edit (input event to the next painted frame): median ${median(frames).toFixed(1)} ms, P95 ${percentile(frames, 95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms`);
console.log(`an input event that changes nothing, to the next painted frame (the floor of the figure above): median ${median(noops).toFixed(1)} ms, P95 ${percentile(noops, 95).toFixed(1)} ms (${noops.length} events)`);
console.log(`first answer after an edit (closed forms, provisional): ${firsts_shown.length ? `median ${median(firsts_shown).toFixed(1)} ms, P95 ${percentile(firsts_shown, 95).toFixed(1)} ms, ` : ''}shown before the full plan in ${firsts_shown.length} of ${edits.length} edits`);
console.log(`recompute after an edit: median ${median(edits).toFixed(1)} ms, P95 ${percentile(edits, 95).toFixed(1)} ms, max ${Math.max(...edits).toFixed(1)} ms (${edits.length} edits)`);
if (arrivals.length) console.log(`the full plan's arrival on the main thread (the worker's message to the painted frame): median ${median(arrivals).toFixed(1)} ms, P95 ${percentile(arrivals, 95).toFixed(1)} ms, max ${Math.max(...arrivals).toFixed(1)} ms (${arrivals.length} edits)`);
if (json) {
  console.log(JSON.stringify({
    wasm_gzip_kib: gz(wasm) / 1024,
    first_render_ms: { median: median(firsts), samples: firsts },
    recompute_ms: { median: median(edits), p95: percentile(edits, 95), max: Math.max(...edits), samples: edits },
    first_answer_ms: firsts_shown.length
      ? { median: median(firsts_shown), p95: percentile(firsts_shown, 95), max: Math.max(...firsts_shown), samples: firsts_shown, edits: edits.length }
      : { samples: [], edits: edits.length },
    frame_ms: { median: median(frames), p95: percentile(frames, 95), max: Math.max(...frames), samples: frames },
    noop_frame_ms: { median: median(noops), p95: percentile(noops, 95), samples: noops },
    arrival_ms: arrivals.length
      ? { median: median(arrivals), p95: percentile(arrivals, 95), max: Math.max(...arrivals), samples: arrivals }
      : { samples: [] },
    worker_gzip_kib: worker ? gz(worker) / 1024 : null,
    link,
  }));
}
