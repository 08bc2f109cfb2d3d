// End-to-end tests of the built gpufare site in Debian's headless Chromium, driven by
// playwright-core. `cargo xtask test` builds the site, serves it, runs the real `gpufare probe`,
// and passes GPUFARE_URL, GPUFARE_PROFILE and GPUFARE_ARTIFACTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
const PROFILE = process.env.GPUFARE_PROFILE;
const ARTIFACTS = process.env.GPUFARE_ARTIFACTS ?? tmpdir();
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask test`)');
assert.ok(PROFILE, 'GPUFARE_PROFILE must name a profile written by `gpufare probe`');
const golden = JSON.parse(readFileSync(join(here, '../golden/rent.json'), 'utf8'));

let context;
let userDataDir;

before(async () => {
  userDataDir = mkdtempSync(join(tmpdir(), 'gpufare-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    locale: 'en-US',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** Opens the site in a fresh page, recording page errors and every request it makes. */
async function openSite(t, { locale } = {}) {
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('request', (r) => requests.push(r.url()));
  if (locale) {
    await page.addInitScript((l) => Object.defineProperty(navigator, 'language', { get: () => l }), locale);
  }
  await page.goto(BASE);
  await page.locator('#hours').waitFor();
  t.after(async () => {
    assert.deepEqual(errors, [], 'the page logged errors');
    const foreign = requests.filter((u) => !u.startsWith(BASE));
    assert.deepEqual(foreign, [], 'the page requested something outside its own site');
    await page.close();
  });
  return page;
}

async function enterRentRow(page, row) {
  await page.selectOption('#currency', row.currency);
  await page.selectOption('#granularity', row.granularity);
  await page.fill('#minimum', row.minimum_minutes);
  await page.fill('#price', row.price_per_hour);
  await page.fill('#hours', row.hours);
}

test('the served page renders and prices every golden row like core does', async (t) => {
  const page = await openSite(t);
  assert.match(await page.title(), /gpufare/);
  await page.screenshot({ path: join(ARTIFACTS, 'site-en.png'), fullPage: true });
  for (const row of golden.rows) {
    await enterRentRow(page, row);
    const rent = page.locator('#rent');
    await rent.waitFor();
    assert.equal(await rent.getAttribute('data-amount'), row.rent, row.name);
    assert.equal(await rent.textContent(), `${Number(row.rent) >= 1000 ? groupThousands(row.rent) : row.rent} ${row.currency}`, row.name);
    assert.match(await page.locator('#billed').textContent(), new RegExp(`: ${groupThousands(String(row.billed_seconds))} s`), row.name);
  }
});

test('rent recomputes on every keystroke', async (t) => {
  const page = await openSite(t);
  await enterRentRow(page, { currency: 'USD', granularity: 'second', minimum_minutes: '0', price_per_hour: '2', hours: '1' });
  assert.equal(await page.locator('#rent').getAttribute('data-amount'), '2.00');
  await page.fill('#hours', '');
  await page.locator('#hours').pressSequentially('1');
  assert.equal(await page.locator('#rent').getAttribute('data-amount'), '2.00');
  await page.locator('#hours').pressSequentially('2');
  assert.equal(await page.locator('#rent').getAttribute('data-amount'), '24.00');
  await page.locator('#hours').pressSequentially('.5');
  assert.equal(await page.locator('#rent').getAttribute('data-amount'), '25.00');
});

test('bad input shows its reason next to the field and never breaks the page', async (t) => {
  const page = await openSite(t);
  for (const row of golden.errors) {
    await enterRentRow(page, row);
    const field = row.field;
    const message = page.locator(`#${field}-error`);
    await assert.doesNotReject(message.filter({ hasText: /\S/ }).waitFor({ timeout: 5000 }), `${row.name}: no message`);
    assert.equal(await page.locator(`#${field}`).getAttribute('aria-invalid'), 'true', row.name);
    assert.equal(await page.locator('#rent').count(), 0, `${row.name}: a rent was shown for bad input`);
    await page.locator('#rent-unavailable').waitFor();
  }
  // Several bad fields at once each get their own message; fixing them brings the rent back.
  await enterRentRow(page, { currency: 'CNY', granularity: 'minute', minimum_minutes: 'NaN', price_per_hour: 'abc', hours: '-3' });
  assert.match(await page.locator('#hours-error').textContent(), /negative/);
  assert.match(await page.locator('#price-error').textContent(), /not a number/);
  assert.match(await page.locator('#minimum-error').textContent(), /not a finite number/);
  await enterRentRow(page, { currency: 'CNY', granularity: 'minute', minimum_minutes: '0', price_per_hour: '6', hours: '0.01' });
  assert.equal(await page.locator('#rent').getAttribute('data-amount'), '0.10');
  assert.equal(await page.locator('#hours-error').textContent(), '');
  assert.equal(await page.locator('#hours').getAttribute('aria-invalid'), 'false');
});

test('the page speaks Chinese, by browser language or by the toggle', async (t) => {
  const page = await openSite(t, { locale: 'zh-CN' });
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
  assert.equal(await page.locator('#rent-heading').textContent(), '按量付费租金');
  await page.fill('#hours', '-1');
  assert.equal(await page.locator('#hours-error').textContent(), '不能为负数。');
  await page.fill('#hours', '2');
  await page.screenshot({ path: join(ARTIFACTS, 'site-zh.png'), fullPage: true });
  await page.click('#lang-toggle');
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  assert.equal(await page.locator('#rent-heading').textContent(), 'Pay-as-you-go rent');
  await page.click('#lang-toggle');
  assert.equal(await page.locator('#rent-heading').textContent(), '按量付费租金');
});

test('a profile written by gpufare probe in this run shows its host and GPU summary', async (t) => {
  const text = readFileSync(PROFILE, 'utf8');
  assert.match(text, /^\{\s*"format_version":/, 'format_version must be the first field');
  const profile = JSON.parse(text);
  const page = await openSite(t);
  await page.setInputFiles('#profile-file', PROFILE);
  await page.locator('#profile-summary').waitFor();
  assert.equal(await page.locator('#profile-cpu').textContent(), profile.host.cpu_model);
  assert.equal(await page.locator('#profile-cores').textContent(), String(profile.host.logical_cores));
  const ramGib = (profile.host.total_ram_bytes / 2 ** 30).toFixed(1);
  assert.equal(await page.locator('#profile-ram').textContent(), `${Number(ramGib).toLocaleString('en-US', { minimumFractionDigits: 1 })} GiB`);
  const gpus = await page.locator('#profile-gpus').textContent();
  if (profile.gpus.length === 0) {
    assert.match(gpus, /No GPU in this profile/);
    assert.ok(gpus.includes(profile.gpus_unavailable), 'the reason for no GPUs is shown');
  } else {
    for (const g of profile.gpus) assert.ok(gpus.includes(g.name), `GPU ${g.name} is listed`);
  }
  await page.screenshot({ path: join(ARTIFACTS, 'site-profile.png'), fullPage: true });
});

test('malformed, foreign and newer-version files get a clear message', async (t) => {
  const page = await openSite(t);
  const cases = [
    ['broken.json', '{"format_version": 1, "tool": ', /not valid JSON \(line 1, column \d+/],
    ['nvitop.json', '{"devices": []}', /not a gpufare profile: it has no format_version field/],
    ['future.json', '{"format_version": 99, "tool": {"name": "gpufare", "version": "9.0.0"}}', /format version 99, newer than this site reads \(up to 1\)/],
    ['partial.json', '{"format_version": 1, "tool": {"name": "gpufare", "version": "0.1.0"}}', /damaged .*missing field `created_at`/],
  ];
  for (const [name, body, expected] of cases) {
    await page.setInputFiles('#profile-file', { name, mimeType: 'application/json', buffer: Buffer.from(body) });
    const message = page.locator('#profile-error');
    await message.filter({ hasText: name }).waitFor();
    assert.match(await message.textContent(), expected, name);
    assert.equal(await page.locator('#profile-summary').count(), 0, name);
  }
  // A good file after bad ones replaces the message with the summary.
  await page.setInputFiles('#profile-file', PROFILE);
  await page.locator('#profile-summary').waitFor();
  assert.equal(await page.locator('#profile-error').count(), 0);
});

function groupThousands(plain) {
  const [int, frac] = plain.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}
