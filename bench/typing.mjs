// Typing while plans arrive: keystrokes at a steady rate on the work-hours field of the built
// site, each timed from its input event to the next painted frame, and flagged when the plan
// worker's answer arrived in between (the answer's read-back and re-render then share the
// keystroke's frame). Issue 34 asks that typing never stutter; `site-metrics.mjs` times single
// edits a while apart, this times a person typing fast.
// Usage: node bench/typing.mjs [--rounds N] http://127.0.0.1:8080/   (after `cargo xtask serve`)
//   Each round loads the page and types 30 keystrokes every 60, 120 and 200 ms.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/e2e/package.json'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args.splice(roundsAt, 2)[1]) : 4;
if (!(Number.isInteger(rounds) && rounds > 0)) {
  console.error('--rounds wants a whole number of page loads, for example --rounds 4');
  process.exit(2);
}
const [url = 'http://127.0.0.1:8080/'] = args;
const KEYSTROKES = 30;
const INTERVALS = [60, 120, 200];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const timed = new Map(INTERVALS.map((ms) => [ms, []]));
for (let round = 0; round < rounds; round++) {
  const page = await browser.newPage();
  // When each of the worker's answers arrived, stamped before the page's own handler runs.
  await page.addInitScript(() => {
    window.__arrivals = [];
    const Native = window.Worker;
    if (!Native) return;
    window.Worker = class extends Native {
      constructor(...workerArgs) {
        super(...workerArgs);
        this.addEventListener('message', (event) => {
          if (event.data && 'plan' in event.data) window.__arrivals.push(performance.now());
        });
      }
    };
  });
  await page.goto(url);
  await page.waitForSelector('#recommended');
  // The worker loads and warms up after the first paint; a person reads before typing.
  await page.waitForTimeout(1000);
  for (const interval of INTERVALS) {
    const frames = await page.evaluate(({ interval, base, count }) => new Promise((resolve) => {
      const input = document.querySelector('#work-hours');
      const frames = [];
      let typed = 0;
      const keystroke = () => {
        const start = performance.now();
        input.value = String(base + (typed % 7) + 0.5 * (typed % 3));
        input.dispatchEvent(new Event('input', { bubbles: true }));
        // A task queued from the next frame's requestAnimationFrame runs after its paint.
        requestAnimationFrame(() => setTimeout(() => {
          const end = performance.now();
          frames.push([end - start, window.__arrivals.some((t) => t > start && t < end)]);
          if (frames.length === count) setTimeout(() => resolve(frames), 300);
        }, 0));
        typed += 1;
        if (typed < count) setTimeout(keystroke, interval);
      };
      keystroke();
    }), { interval, base: 8 + round, count: KEYSTROKES });
    timed.get(interval).push(...frames);
  }
  await page.close();
}
await browser.close();

// The nearest-rank percentile: the smallest sample with at least p % of the samples at or below it.
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
const ms = (x) => (x === undefined ? '-' : `${x.toFixed(1)} ms`);
for (const [interval, frames] of timed) {
  const all = frames.map(([t]) => t);
  const met = frames.filter(([, arrived]) => arrived).map(([t]) => t);
  console.log(`a keystroke every ${interval} ms: ${all.length} keystrokes, input event to painted frame median ${ms(percentile(all, 50))}, P95 ${ms(percentile(all, 95))}, longest ${ms(Math.max(...all))}; ${met.length} shared their frame with a plan's arrival (median ${ms(percentile(met, 50))}, longest ${ms(met.length ? Math.max(...met) : undefined)})`);
}
