// What the smaller browser test files share: Debian's Chromium started with the flags this
// machine needs, a page of the site opened in a fresh context that fails its test on any page
// error, its panels opened, and the scenario it saved priced by the CLI built in the same run.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Starts headless Chromium (never a downloaded browser). */
export const launch = () => chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });

/** Resolves once the page shows the plan of its current scenario. */
export const settled = (page) => page.waitForFunction(() => document.querySelector('#app')?.dataset.plan === 'current');

/**
 * Opens `url` in a fresh context of `browser` in `locale` (with downloads when asked) and waits
 * for its plan; the test fails if the page logs an error.
 */
export async function openPage(browser, t, url, locale, { acceptDownloads = false } = {}) {
  const context = await browser.newContext({ locale, acceptDownloads, viewport: { width: 1400, height: 1000 } });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  t.after(() => assert.deepEqual(errors, [], 'the page logged errors'));
  await page.goto(url);
  await page.locator('#recommended').waitFor();
  await settled(page);
  return page;
}

/**
 * Opens a closed panel (a `<details>`) by clicking its summary, as a person would. Sections below
 * the fold are laid out only when they come into view (content-visibility), so a page that has
 * just scrolled can still move under a click: the click is repeated until the panel is open.
 */
export async function openPanel(page, details) {
  const panel = page.locator(details).first();
  for (let i = 0; i < 4 && !(await panel.evaluate((d) => d.open)); i++) {
    await panel.locator(':scope > summary').click();
  }
  assert.ok(await panel.evaluate((d) => d.open), `${details} opens`);
}

/** The scenario the page saved. */
export const saved = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('gpufare.scenario')));

/**
 * The CLI's JSON plan of the scenario the page holds now: `gpufare plan --scenario FILE --format
 * json` and `args`, with the binary `cargo xtask e2e` built (GPUFARE_BIN).
 */
export async function cliPlanOf(page, args = []) {
  const bin = process.env.GPUFARE_BIN;
  assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
  const dir = mkdtempSync(join(tmpdir(), 'gpufare-e2e-'));
  const path = join(dir, 'scenario.json');
  try {
    writeFileSync(path, JSON.stringify(await saved(page)));
    return JSON.parse(execFileSync(bin, ['plan', '--scenario', path, '--format', 'json', ...args],
      { encoding: 'utf8', maxBuffer: 64 << 20 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The options of that plan (200 trials) by offer id. */
export async function cliOptions(page) {
  const plan = await cliPlanOf(page, ['--trials', '200']);
  return new Map(plan.options.map((o) => [o.offer_id, o]));
}
