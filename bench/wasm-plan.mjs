// Times the plan benchmark compiled to wasm (bench/wasm-plan, built by `cargo xtask bench`) in
// Node and in headless Chromium, the same work as `cargo bench -p gpufare-core --bench plan`.
// Human-readable lines go to stderr; the last line on stdout is one JSON object:
//   {"offers":N,"node":{"<case>":{"median_ms":..,"p95_ms":..,"samples_ms":[..]},..},"chromium":{..}}
// Usage: node bench/wasm-plan.mjs DIR [--seconds S] [--min N] [--max N] [--warmup N] [--only node|chromium]
//   DIR holds gpufare_wasm_bench.js and gpufare_wasm_bench_bg.wasm (wasm-bindgen, target web).
//   Each case runs --warmup untimed plans, then as many timed ones as fit in about S seconds,
//   at least --min and at most --max.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const budget = {
  seconds: Number(option('--seconds', '5')),
  min: Number(option('--min', '10')),
  max: Number(option('--max', '200')),
  warmup: Number(option('--warmup', '2')),
};
const only = option('--only', null);
const [dirArg] = args;
if (!dirArg || Object.values(budget).some((x) => !(x >= 0))) {
  console.error('usage: node bench/wasm-plan.mjs DIR [--seconds S] [--min N] [--max N] [--warmup N] [--only node|chromium]');
  process.exit(2);
}
const dir = resolve(dirArg);
const JS = 'gpufare_wasm_bench.js';
const WASM = 'gpufare_wasm_bench_bg.wasm';

// Runs every case with the module's exports `m` (in Node or inside the page): a first timed plan
// sizes the run, then the timed plans, all in one call into the wasm.
async function runCases(m, budget) {
  const out = {};
  for (const name of m.cases()) {
    const [first] = m.plan_times(name, 1, budget.warmup);
    const n = Math.max(budget.min, Math.min(budget.max, Math.ceil((budget.seconds * 1000) / Math.max(first, 0.01))));
    out[name] = Array.from(m.plan_times(name, n, 0));
  }
  return { offers: m.offer_count(), cases: out };
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const summarize = (where, run) => {
  const out = {};
  for (const [name, samples] of Object.entries(run.cases)) {
    out[name] = { median_ms: median(samples), p95_ms: percentile(samples, 95), samples_ms: samples };
    console.error(`${where.padEnd(8)} ${name.padEnd(15)} median ${median(samples).toFixed(2)} ms, P95 ${percentile(samples, 95).toFixed(2)} ms (${samples.length} plans)`);
  }
  return out;
};

async function inNode() {
  const m = await import(pathToFileURL(join(dir, JS)).href);
  m.initSync({ module: readFileSync(join(dir, WASM)) });
  return runCases(m, budget);
}

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const PAGE = '<!doctype html><meta charset="utf-8"><title>gpufare wasm bench</title>';

async function inChromium() {
  const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '../tests/e2e/package.json'));
  const { chromium } = require('playwright-core');
  // A loopback server for the page and the module: wasm needs a real origin to be fetched.
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    const name = path.slice(1);
    if (name !== JS && name !== WASM) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[name.slice(name.lastIndexOf('.'))] }).end(readFileSync(join(dir, name)));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const profile = mkdtempSync(join(tmpdir(), 'gpufare-bench-profile-'));
  let context;
  try {
    // launchPersistentContext passes `--user-data-dir` with the fresh, empty profile.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url);
    return await page.evaluate(async ({ js, budget, runCases }) => {
      const m = await import(`/${js}`);
      await m.default();
      // eslint-disable-next-line no-new-func
      return new Function(`return (${runCases})`)()(m, budget);
    }, { js: JS, budget, runCases: runCases.toString() });
  } finally {
    await context?.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const result = {};
if (only !== 'chromium') {
  const run = await inNode();
  result.offers = run.offers;
  result.node = summarize('node', run);
}
if (only !== 'node') {
  const run = await inChromium();
  result.offers = run.offers;
  result.chromium = summarize('chromium', run);
}
result.node_version = process.version;
console.log(JSON.stringify(result));
