// Where a keystroke's frame goes: for a number of edits of the work-hours field (as
// `site-metrics.mjs` makes them), a Chromium trace of the main thread from the input event to the
// next painted frame, summed per kind of work (script, style, layout, pre-paint, paint, commit and
// the rest), and a sampled profile of the same windows summed by function (self time). Function
// names need a build that keeps them: `GPUFARE_KEEP_NAMES=1 cargo xtask dist --out DIR` then
// `cargo xtask serve --out DIR &`.
// Usage: node bench/edit-profile.mjs [--edits N] [--top N] [http://127.0.0.1:8080/]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/e2e/package.json'));
const { chromium } = require('playwright-core');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args.splice(at, 2)[1]);
  if (!(Number.isInteger(value) && value > 0)) {
    console.error(`${name} wants a whole number, for example ${name} 20`);
    process.exit(2);
  }
  return value;
};
const editCount = option('--edits', 20);
const top = option('--top', 25);
const [url = 'http://127.0.0.1:8080/'] = args;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage();
const cdp = await page.context().newCDPSession(page);
await page.goto(url);
await page.waitForSelector('#recommended');
// As site-metrics.mjs: a second for the worker to load and the page to warm up.
await page.waitForTimeout(1000);

const events = [];
cdp.on('Tracing.dataCollected', ({ value }) => events.push(...value));
const traced = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
await cdp.send('Tracing.start', {
  traceConfig: { includedCategories: ['devtools.timeline', 'blink.user_timing', 'v8.execute'] },
  transferMode: 'ReportEvents',
});
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
const profiles = [];
const frames = [];
for (let i = 0; i < editCount; i++) {
  await cdp.send('Profiler.start');
  // The window: performance marks around the input event and the next painted frame.
  const frame = await page.evaluate((hours) => new Promise((resolve) => {
    const input = document.querySelector('#work-hours');
    performance.mark('edit-start');
    const start = performance.now();
    input.value = String(hours);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    requestAnimationFrame(() => setTimeout(() => {
      performance.mark('edit-frame');
      resolve(performance.now() - start);
    }, 0));
  }), 7 + i * 3);
  const { profile } = await cdp.send('Profiler.stop');
  frames.push(frame);
  profiles.push(profile);
  // Then the full plan arrives and is painted before the next edit, as in site-metrics.mjs.
  await page.waitForFunction(() => document.querySelector('#app').dataset.plan === 'current');
  await page.waitForTimeout(50);
}
await cdp.send('Tracing.end');
await traced;
await browser.close();

// The renderer's main thread, and each edit's window on it from the two marks.
const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid);
const starts = onMain.filter((e) => e.name === 'edit-start').map((e) => e.ts);
const ends = onMain.filter((e) => e.name === 'edit-frame').map((e) => e.ts);
// Self and total time by function, for the samples inside each edit's window (the profiles'
// and the trace's times are the same monotonic clock, in microseconds).
const selfByName = new Map();
const totalByName = new Map();
let sampled = 0;
profiles.forEach((profile, i) => {
  if (starts[i] === undefined || ends[i] === undefined) return;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const nameOf = (node) => node.callFrame.functionName || `(${node.callFrame.url.split('/').pop() || 'anonymous'})`;
  let at = profile.startTime;
  const times = profile.timeDeltas.map((d) => (at += d));
  profile.samples.forEach((id, k) => {
    if (times[k] < starts[i] || times[k] > ends[i]) return;
    const name = nameOf(byId.get(id));
    if (name === '(idle)') return;
    const weight = (k + 1 < times.length ? times[k + 1] - times[k] : 50) / 1000;
    selfByName.set(name, (selfByName.get(name) ?? 0) + weight);
    sampled += weight;
    // Total time: every function on the sample's stack, once.
    const seen = new Set();
    for (let up = id; up !== undefined; up = parent.get(up)) seen.add(nameOf(byId.get(up)));
    for (const f of seen) totalByName.set(f, (totalByName.get(f) ?? 0) + weight);
  });
});
const kinds = [
  ['script', ['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'RunMicrotasks', 'v8.callFunction', 'EvaluateScript']],
  ['style', ['UpdateLayoutTree', 'RecalculateStyles']],
  ['layout', ['Layout']],
  ['pre-paint', ['PrePaint']],
  ['paint', ['Paint']],
  ['layerize', ['Layerize']],
  ['commit', ['Commit']],
];
const sums = new Map(kinds.map(([k]) => [k, 0]));
for (let i = 0; i < Math.min(starts.length, ends.length); i++) {
  // Top-level complete events of each kind inside the window (nested ones of the same kind are
  // inside their parent and not counted twice).
  for (const [kind, names] of kinds) {
    const inside = onMain
      .filter((e) => e.ph === 'X' && names.includes(e.name) && e.ts >= starts[i] && e.ts + e.dur <= ends[i])
      .sort((a, b) => a.ts - b.ts);
    let reach = -Infinity;
    for (const e of inside) {
      if (e.ts >= reach) sums.set(kind, sums.get(kind) + e.dur / 1000);
      reach = Math.max(reach, e.ts + e.dur);
    }
  }
}
const sorted = [...frames].sort((a, b) => a - b);
const n = frames.length;
console.log(`${n} edits: input event to the next painted frame, median ${sorted[Math.floor(n / 2)].toFixed(1)} ms, P95 ${sorted[Math.min(n - 1, Math.ceil(0.95 * n) - 1)].toFixed(1)} ms`);
console.log('per edit, traced on the main thread (ms):');
for (const [kind, total] of sums) console.log(`  ${kind.padEnd(10)} ${(total / n).toFixed(2)}`);
console.log(`per edit, sampled (${(sampled / n).toFixed(2)} ms not idle), self time by function (ms):`);
for (const [name, ms] of [...selfByName].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${(ms / n).toFixed(3).padStart(7)}  ${name.slice(0, 140)}`);
}
console.log('per edit, total time by function, callees included (ms):');
for (const [name, ms] of [...totalByName].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${(ms / n).toFixed(3).padStart(7)}  ${name.slice(0, 140)}`);
}
