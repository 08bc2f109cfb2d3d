// End-to-end tests of the built gpufare site in Debian's headless Chromium, driven by
// playwright-core. `cargo xtask test` builds the site, serves it, runs the real `gpufare probe`,
// and passes GPUFARE_URL, GPUFARE_PROFILE and GPUFARE_ARTIFACTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { catalogData, englishOnPage } from './language.mjs';
import { openPanel } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
const PROFILE = process.env.GPUFARE_PROFILE;
const ARTIFACTS = process.env.GPUFARE_ARTIFACTS ?? tmpdir();
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask test`)');
assert.ok(PROFILE, 'GPUFARE_PROFILE must name a profile written by `gpufare probe`');
const golden = JSON.parse(readFileSync(join(here, '../golden/rent.json'), 'utf8'));

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
let browser;
const profiles = [];

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Playwright gives every launch and every context a fresh, empty profile.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
});

after(async () => {
  await browser?.close();
  for (const dir of profiles) rmSync(dir, { recursive: true, force: true });
});

/** A browser with its own new --user-data-dir, as a person opening a link on another machine. */
async function freshProfile(t) {
  const dir = mkdtempSync(join(tmpdir(), 'gpufare-profile-'));
  profiles.push(dir);
  const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: FLAGS, locale: 'en-US' });
  t.after(() => context.close());
  return context;
}

/** Records page errors and requests; after the test, fails on any of either that should not be. */
function watch(t, page) {
  const errors = [];
  const requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('request', (r) => requests.push(r.url()));
  t.after(() => {
    assert.deepEqual(errors, [], 'the page logged errors');
    const foreign = requests.filter((u) => !u.startsWith(BASE));
    assert.deepEqual(foreign, [], 'the page requested something outside its own site');
  });
}

/** Opens every closed panel that can be seen. */
async function openAllPanels(page) {
  const ids = await page.$$eval('details:not([open])', (ds) => ds.filter((d) => d.checkVisibility()).map((d, i) => {
    if (!d.id) d.dataset.panel = String(i);
    return d.id ? `#${d.id}` : `details[data-panel="${i}"]`;
  }));
  for (const id of ids) await openPanel(page, id);
}

/** Opens the site in a new, empty browser context (no saved state). */
async function openSite(t, { locale = 'en-US', viewport, rent = false } = {}) {
  const context = await browser.newContext({ locale, viewport: viewport ?? { width: 1400, height: 1000 } });
  t.after(() => context.close());
  const page = await context.newPage();
  watch(t, page);
  await page.goto(BASE);
  await page.locator('#recommended').waitFor();
  if (rent) await openPanel(page, '#quick-rent');
  return page;
}

async function enterRentRow(page, row) {
  await page.selectOption('#currency', row.currency);
  await page.selectOption('#granularity', row.granularity);
  await page.fill('#minimum', row.minimum_minutes);
  await page.fill('#price', row.price_per_hour);
  await page.fill('#hours', row.hours);
}

test('the quick rent check prices every golden row like core does', async (t) => {
  const page = await openSite(t, { rent: true });
  assert.match(await page.title(), /gpufare/);
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
  const page = await openSite(t, { rent: true });
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
  const page = await openSite(t, { rent: true });
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
  const page = await openSite(t, { locale: 'zh-CN', rent: true });
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
  assert.equal(await page.locator('#rent-heading').textContent(), '按量付费租金');
  await page.fill('#hours', '-1');
  assert.equal(await page.locator('#hours-error').textContent(), '不能为负数。');
  await page.fill('#hours', '2');
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
    ['future.json', '{"format_version": 99, "tool": {"name": "gpufare", "version": "9.0.0"}}', /format version 99, newer than this site reads \(up to 2\)/],
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

// ---- The site under bad input (issue 18, item 6) ----

/** Every localStorage entry of the page, to compare before and after bad input. */
/**
 * What the page keeps in localStorage for the user, without `gpufare.mirrored` (the fragment the
 * page last wrote into the URL: bookkeeping that follows the URL, not the user's data).
 */
function storage(page) {
  return page.evaluate(() => Object.fromEntries(Object.keys(localStorage).filter((k) => k !== 'gpufare.mirrored').sort().map((k) => [k, localStorage.getItem(k)])));
}

// Two quotes of the same GPU, monthly and by the hour, as a complete catalog CSV and JSON.
const QUOTE_HEADER = 'id,provider,gpu,gpu_count,vram_gib,tenancy,billing_mode,price,currency,as_of,source,region,region_name,region_class,granularity\n';
const QUOTE_ROWS = 'month,Me,A100-80GB,1,80,dedicated,monthly,5000,CNY,2026-01-01,my quote,cn,China,tier1,hour\n' +
  'payg,Me,A100-80GB,1,80,dedicated,pay_as_you_go,8,CNY,2026-01-01,my quote,cn,China,tier1,second\n';
const QUOTE_JSON = ['month', 'payg'].map((id) => ({
  id, provider: 'Me', region: { id: 'cn', name: 'China', class: 'tier1', rtt_ms: 10 }, gpu: 'A100-80GB', gpu_count: 1, tenancy: 'dedicated',
  gpu_fraction: 1, vram_gib: 80, billing_mode: id === 'month' ? 'monthly' : 'pay_as_you_go', price: id === 'month' ? '5000' : '8', currency: 'CNY',
  granularity: id === 'month' ? 'hour' : 'second', storage_per_gb_month: '0', egress_per_gb: '0', system_disk_per_month: '0', security: [],
  as_of: '2026-01-01', source: 'my quote', estimate: false,
}));

/** Malformed profiles, catalogs and share links, made here from the fixtures. */
function badInputs() {
  const good = readFileSync(join(here, '../profiles/capped-a100-pcie-gen3.json'), 'utf8');
  const zeroMemory = JSON.parse(good);
  zeroMemory.gpus[0].memory_total_bytes = 0;
  const newer = JSON.parse(good);
  newer.format_version = 99;
  const profiles = [
    ['truncated.json', good.slice(0, Math.floor(good.length / 2))],
    ['zero-memory.json', JSON.stringify(zeroMemory)],
    ['newer-format.json', JSON.stringify(newer)],
  ];
  const [header, ...rows] = readFileSync(join(here, '../fixtures/skypilot/aws-vms.csv'), 'utf8').trim().split('\n');
  const catalogs = [
    ['header-only.csv', 'id,provider,gpu,gpu_count,tenancy,billing_mode,price,currency\n'],
    ['no-offers.json', '{"format_version":1,"offers":[]}'],
    // A price of 1e-28 next to a monthly offer of the same GPU (it once overflowed the break-even).
    ['tiny-price.csv', QUOTE_HEADER + QUOTE_ROWS.replace(',8,CNY,', ',0.0000000000000000000000000001,CNY,')],
    ['tiny-price.json', JSON.stringify({ format_version: 1, offers: QUOTE_JSON.map((o) => (o.id === 'payg' ? { ...o, price: '0.0000000000000000000000000001' } : o)) })],
    ['all-skipped-vms.csv', [header, ...rows.filter((r) => /^(m5\.large|trn1\.2xlarge),/.test(r))].join('\n') + '\n'],
  ];
  return { profiles, catalogs };
}

/** A share link's fragment carrying `scenario` as core encodes it (base64url of the JSON, no padding). */
function shareFragment(scenario) {
  return `#s=${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;
}

const CJK = /[\u4e00-\u9fff]/;

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) {
  test(`bad profiles, catalogs and share links: a worded error (${lang}), the page keeps working, localStorage kept`, async (t) => {
    const { profiles, catalogs } = badInputs();
    const data = [...catalogData(), ...profiles.map(([n]) => n), ...catalogs.map(([n]) => n)].sort((a, b) => b.length - a.length);
    const page = await openSite(t, { locale });
    // Something of the user's own in localStorage first.
    const first = await page.locator('#decision').textContent();
    await page.fill('#work-hours', '50');
    await changedFrom(page, first);
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.work_hours === 50);
    await settled(page);
    const saved = await storage(page);
    assert.ok(saved['gpufare.scenario'], 'the scenario is saved');

    /** The message is in the page's language; the recommendation is there; nothing saved was lost. */
    const wordedAndAlive = async (where, message) => {
      t.diagnostic(`${where}: ${message}`);
      if (lang === 'zh') {
        assert.match(message, CJK, `${where}: Chinese message`);
        assert.deepEqual(await englishOnPage(page, data), [], `${where}: English words on the Chinese page`);
      } else {
        assert.doesNotMatch(message, CJK, `${where}: English message`);
        assert.match(message, /[A-Za-z]{3,}/, where);
      }
      assert.ok((await page.locator('#decision').textContent()).trim().length > 0, `${where}: the recommendation is shown`);
      assert.equal(await page.locator('#recommended').count(), 1, `${where}: the recommendation is shown`);
      assert.deepEqual(await storage(page), saved, `${where}: localStorage changed`);
    };

    for (const [name, body] of profiles) {
      await page.setInputFiles('#profile-file', { name, mimeType: 'application/json', buffer: Buffer.from(body) });
      const message = page.locator('#profile-error').filter({ hasText: name });
      await message.waitFor();
      const text = await message.textContent();
      if (name === 'zero-memory.json') assert.match(text, /gpus\[0\]\.memory_total_bytes/, 'the field is named');
      if (name === 'newer-format.json') assert.match(text, /99/, 'the version is named');
      await wordedAndAlive(name, text);
    }
    for (const [name, body] of catalogs) {
      await page.setInputFiles('#catalog-file', { name, mimeType: name.endsWith('.csv') ? 'text/csv' : 'application/json', buffer: Buffer.from(body) });
      const line = page.locator('#import-report li').filter({ hasText: name });
      await line.waitFor();
      const text = await line.textContent();
      assert.doesNotMatch(text, /\b[1-9]\d* (offers imported)/, `${name}: nothing imported`);
      if (name.startsWith('tiny-price')) assert.match(text.replace(name, ''), lang === 'zh' ? /价格/ : /price/, `${name}: the field is named`);
      await wordedAndAlive(name, text);
    }
    // The page still re-prices after all that.
    const before = await page.locator('#decision').textContent();
    await page.fill('#vram', '30');
    await changedFrom(page, before);
    await page.fill('#vram', '14');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.vram_gib === 14);
    await settled(page);
    const kept = await storage(page);

    // Share links: one whose rate would overflow money, one with a million trials.
    const scenario = JSON.parse(kept['gpufare.scenario']);
    const overflow = structuredClone(scenario);
    overflow.settings.cny_per_usd = '0.0000000000000000000000000001';
    const trials = structuredClone(scenario);
    trials.settings.trials = 1000000;
    for (const [what, fragment, field] of [['rate 1e-28', shareFragment(overflow), lang === 'zh' ? /汇率|人民币/ : /cny_per_usd|rate/i], ['a million trials', shareFragment(trials), lang === 'zh' ? /试验|模拟/ : /trials/i]]) {
      await page.goto(`${BASE}${fragment}`);
      await page.reload();
      await page.locator('#recommended').waitFor();
      const banner = page.locator('#link-error');
      await banner.waitFor();
      const text = await banner.textContent();
      assert.match(text, field, `${what}: the field is named`);
      // The saved scenario is kept and shown, not replaced by the default.
      assert.equal(await page.inputValue('#work-hours'), '50', `${what}: the saved scenario is shown`);
      assert.deepEqual(await storage(page), kept, `${what}: localStorage changed`);
      await wordedAndAlive(what, text);
      const decision = await page.locator('#decision').textContent();
      await page.fill('#work-hours', '60');
      await changedFrom(page, decision);
      await page.fill('#work-hours', '50');
      await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.work_hours === 50);
      await settled(page);
    }
  });
}

function groupThousands(plain) {
  const [int, frac] = plain.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

/** The ranking as the page shows it: offer id, expected total text, for every row. */
async function ranking(page) {
  return page.$$eval('#ranking tbody tr', (rows) => rows.map((r) => [r.dataset.offer, r.querySelector('td.total').textContent]));
}

/**
 * Waits until the plan on screen is the current scenario's. The page plans in a Web Worker after
 * each edit and marks the plan it shows meanwhile as pending.
 */
async function settled(page) {
  await page.waitForFunction(() => document.querySelector('#app')?.dataset.plan === 'current');
}

/** Waits until the recommendation differs from `before` and is the current scenario's. */
async function changedFrom(page, before) {
  await page.waitForFunction((b) => document.querySelector('#decision')?.textContent !== b, before);
  await settled(page);
  await settled(page);
}

test('a preset, a billing mode and a region change the ranking and the recommendation', async (t) => {
  const page = await openSite(t);
  await page.selectOption('#preset', 'sd_batch');
  await page.waitForFunction(() => document.querySelector('#work-hours').value === '20');
  await settled(page);
  const all = await ranking(page);
  assert.ok(all.length >= 5, 'several feasible offers are ranked');
  const totals = all.map(([, total]) => Number(total.replace(/[^0-9.]/g, '')));
  assert.deepEqual(totals, [...totals].sort((a, b) => a - b), 'ranked cheapest first');
  assert.match(await page.locator('#choice').textContent(), /\S/);
  assert.ok((await page.locator('#decision li').count()) >= 1, 'the recommendation gives reasons');

  const before = await page.locator('#decision').textContent();
  await page.selectOption('#filter-billing', 'monthly');
  await changedFrom(page, before);
  const monthly = await ranking(page);
  assert.ok(monthly.length >= 1);
  for (const [id] of monthly) {
    assert.match(await page.locator(`#ranking tr[data-offer="${id}"]`).textContent(), /monthly/, `${id} is a monthly offer`);
  }
  await page.selectOption('#filter-billing', 'all');
  const tier1Before = await page.locator('#decision').textContent();
  await page.selectOption('#filter-region', 'tier1');
  await changedFrom(page, tier1Before);
  const rows = await page.$$eval('#offers-table tbody tr', (trs) => trs.map((tr) => tr.children[1].textContent));
  assert.ok(rows.length > 0 && rows.every((r) => r.includes('tier-1 city')), 'only tier-1 offers remain');
  const recommended = await page.locator('#recommended').getAttribute('data-offer');
  assert.ok(rows.length >= 1 && recommended, 'a tier-1 offer is recommended');
  await page.screenshot({ path: join(ARTIFACTS, 'results-en.png'), fullPage: false });
});

test('the whole page switches to Chinese and back, with nothing left untranslated', async (t) => {
  const page = await openSite(t);
  await page.click('#lang-toggle');
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
  assert.equal(await page.locator('#task-heading').textContent(), '任务');
  assert.match(await page.locator('#choice').textContent(), /[共独混没]/);
  assert.match(await page.locator('#ranking td.total').first().textContent(), /元$/);
  const body = await page.locator('body').innerText();
  assert.ok(!body.includes('??'), 'a label key has no translation');
  await page.screenshot({ path: join(ARTIFACTS, 'results-zh.png'), fullPage: false });
  // The evidence section too: every verdict of the probe's profile and the fixtures is worded
  // in Chinese (the evidence's key=value pairs stay raw data).
  const fixtures = ['hami-4090-neighbours.json', 'capped-a100-pcie-gen3.json', 'mig-a100-1g10gb.json', 'vgpu-v100d-8c.json'].map((f) => join(here, '../profiles', f));
  await page.setInputFiles('#profile-file', [PROFILE, ...fixtures]);
  await page.locator('#profile-compare tbody tr').nth(4).waitFor();
  const verdicts = await page.locator('#profile-compare ul.verdicts strong').allTextContents();
  assert.ok(verdicts.length >= 10);
  for (const v of verdicts) assert.doesNotMatch(v, /[a-z]_[a-z]/, `an untranslated finding: ${v}`);
  assert.match(await page.locator('#profile-compare thead').textContent(), /磁盘.*网络/);
  assert.ok(!(await page.locator('body').innerText()).includes('??'));
  await page.click('#lang-toggle');
  assert.equal(await page.locator('#task-heading').textContent(), 'Task');
  assert.match((await page.locator('#profile-compare ul.verdicts strong').allTextContents()).join(' '), /slice: a whole card/);
  assert.ok(!(await page.locator('body').innerText()).includes('??'));
});

test('a reload keeps the scenario; reset restores the default', async (t) => {
  const page = await openSite(t);
  const before = await page.locator('#decision').textContent();
  await page.fill('#work-hours', '50');
  await page.fill('#vram', '30');
  await changedFrom(page, before);
  const decision = await page.locator('#decision').textContent();
  const rows = await ranking(page);
  // Reloaded once typing has paused and the page has mirrored the scenario into the URL, as a
  // person reloads. A reload within a second of the edits once came back with the default
  // scenario in a full run on a loaded 2-core machine (and passed alone, three times of three):
  // the page had saved the edits, so the browser had likely not yet stored its last writes.
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.work_hours), 50);
  await page.reload();
  await page.locator('#recommended').waitFor();
  assert.equal(await page.inputValue('#work-hours'), '50');
  assert.equal(await page.inputValue('#vram'), '30');
  assert.equal(await page.locator('#decision').textContent(), decision);
  assert.deepEqual(await ranking(page), rows);
  await page.click('#reset');
  await page.waitForFunction(() => document.querySelector('#work-hours').value === '6');
  await settled(page);
  assert.equal(await page.inputValue('#vram'), '14');
});

/** Sets the work hours as typing does: an input event in a task of its own, without waiting. */
async function typeHours(page, hours) {
  await page.evaluate((h) => {
    const input = document.querySelector('#work-hours');
    input.value = String(h);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, hours);
}

/** The recommendation and the ranking on screen. */
async function shownPlan(page) {
  return { decision: await page.locator('#decision').textContent(), rows: await ranking(page) };
}

/**
 * Opens `page`'s share link afresh, where the page plans the scenario itself, and checks that it
 * shows the plan `shown` to the cent. Returns the fresh page.
 */
async function samePlanOnPage(t, page, shown) {
  await page.click('#share');
  const link = await page.inputValue('#share-link');
  const fresh = await (await browser.newContext({ locale: 'en-US' })).newPage();
  t.after(() => fresh.context().close());
  watch(t, fresh);
  await fresh.goto(link);
  await fresh.locator('#recommended').waitFor();
  assert.equal(await fresh.locator('#app').getAttribute('data-planner'), 'page');
  assert.equal(await fresh.locator('#decision').textContent(), shown.decision);
  assert.deepEqual(await ranking(fresh), shown.rows);
  return fresh;
}

/**
 * A page in a context of its own without the service worker (so that routes see every fetch),
 * and the errors it throws.
 */
async function bareSite(t) {
  const context = await browser.newContext({ locale: 'en-US', serviceWorkers: 'block' });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, errors };
}

test('edits are planned in a Web Worker; a burst of them ends with the plan of the last one, as the page would compute it', async (t) => {
  const page = await openSite(t);
  assert.equal(await page.locator('#app').getAttribute('data-planner'), 'page', 'the first plan is the page\'s own');
  // Each edit in its own task: the worker is still busy with the first when the others arrive,
  // so the page must drop the ones in between and end with the last.
  for (const hours of [31, 32, 33, 34, 35, 36, 37]) await typeHours(page, hours);
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.work_hours === 37);
  await settled(page);
  assert.equal(await page.locator('#app').getAttribute('data-planner'), 'worker');
  assert.equal(await page.locator('.results-column').getAttribute('aria-busy'), 'false');
  // The same scenario opened afresh is planned on the page itself: the same figures, to the cent.
  const fresh = await samePlanOnPage(t, page, await shownPlan(page));
  assert.equal(await fresh.inputValue('#work-hours'), '37');
});

test('after an edit a first answer from the closed forms comes first, marked provisional, and the full plan replaces it', async (t) => {
  for (const [locale, badge] of [['en-US', 'First answer, provisional'], ['zh-CN', '初步结果（暂定）']]) {
    const page = await openSite(t, { locale });
    const set = (id, value) => page.evaluate(([i, v]) => {
      const input = document.querySelector(`#${i}`);
      input.value = String(v);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, [id, value]);
    // The default catalog's first answer is priced on the page, in the edit's own task. 10,000
    // trials make the full plan slow enough here for the first answer to be seen before it.
    await set('trials', 10000);
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).settings.trials === 10000);
    await settled(page);
    assert.equal(await page.locator('#app').getAttribute('data-planner'), 'worker');
    await page.evaluate(() => {
      window.firstSeen = [];
      new MutationObserver(() => {
        const f = document.querySelector('#first-answer');
        if (!f) return;
        window.firstSeen.push({
          choice: f.dataset.choice,
          trials: f.dataset.trials,
          engine: f.dataset.engine,
          provisional: f.dataset.provisional,
          offer: document.querySelector('#first-recommended')?.dataset.offer ?? null,
          plan: document.querySelector('#app').dataset.plan,
          rows: f.querySelectorAll('li').length,
          text: f.textContent,
        });
      }).observe(document.querySelector('#app'), { subtree: true, childList: true, attributes: true });
    });
    await typeHours(page, 41);
    await page.waitForFunction(() => window.firstSeen.length > 0);
    await settled(page);
    const [first] = await page.evaluate(() => window.firstSeen);
    assert.equal(first.provisional, 'true');
    assert.equal(first.trials, '1', 'priced with the closed forms alone');
    assert.equal(first.engine, 'page', 'priced on the page');
    assert.equal(first.plan, 'pending', 'shown while the full plan is on its way');
    assert.ok(first.rows >= 1 && first.rows <= 5, `ranked rows: ${first.rows}`);
    assert.ok(first.text.includes(badge), `${locale}: ${first.text}`);
    assert.ok(first.offer, 'a recommended offer');
    // The full plan replaced it, and names the same kind of capacity here.
    assert.equal(await page.locator('#first-answer').count(), 0);
    assert.equal(first.choice, await page.locator('#decision').getAttribute('data-choice'));
  }
});

test('a catalog too large for the page gets its first answer from the quick worker', async (t) => {
  const page = await openSite(t);
  // The default catalog three more times over, under other ids: 456 offers, above the 200 the
  // page prices itself.
  const lines = readFileSync(join(here, '../../core/data/catalog.csv'), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const [header, ...rows] = lines;
  const copies = [1, 2, 3].flatMap((k) => rows.map((r) => r.replace(/^([^,]+),/, `$1-copy${k},`)));
  await page.setInputFiles('#catalog-file', { name: 'many.csv', mimeType: 'text/csv', buffer: Buffer.from([header, ...copies].join('\n')) });
  await page.locator('#import-report li').filter({ hasText: 'many.csv' }).waitFor();
  await settled(page);
  assert.match(await page.locator('#offers-count').textContent(), /\/ 456 /, 'every copy imported');
  await page.evaluate(() => {
    window.firstSeen = [];
    new MutationObserver(() => {
      const f = document.querySelector('#first-answer');
      if (f) window.firstSeen.push({ engine: f.dataset.engine, trials: f.dataset.trials, plan: document.querySelector('#app').dataset.plan });
    }).observe(document.querySelector('#app'), { subtree: true, childList: true, attributes: true });
  });
  // The full plan of 456 offers takes long enough here for the quick worker's answer to come first.
  await typeHours(page, 43);
  await page.waitForFunction(() => window.firstSeen.length > 0, null, { timeout: 60_000 });
  const [first] = await page.evaluate(() => window.firstSeen);
  assert.deepEqual(first, { engine: 'worker', trials: '1', plan: 'pending' });
  await settled(page);
  assert.equal(await page.locator('#first-answer').count(), 0, 'the full plan replaced it');
});

test('while the plan worker is held back, the page shows its first answer and dims the plan it shows after a moment', async (t) => {
  const { page, errors } = await bareSite(t);
  // The worker's module is held back from the start: the worker is up but cannot answer yet
  // (the first plan is the page's own).
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/gpufare_plan_bg.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(BASE);
  await page.locator('#recommended').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.locator('.results-column').getAttribute('data-slow'), 'false');
  await typeHours(page, 44);
  await page.locator('#first-answer[data-engine="page"]').waitFor();
  assert.equal(await page.locator('#app').getAttribute('data-plan'), 'pending');
  await page.waitForFunction(() => document.querySelector('.results-column').dataset.slow === 'true');
  assert.equal(await page.locator('.results-column').getAttribute('aria-busy'), 'true');
  release();
  await settled(page);
  assert.equal(await page.locator('.results-column').getAttribute('data-slow'), 'false');
  assert.equal(await page.locator('#first-answer').count(), 0);
  assert.deepEqual(errors, []);
});

test('with more than two cores the worker splits each plan with helpers; a helper that cannot start leaves its share to the worker', async (t) => {
  const { context, page, errors } = await bareSite(t);
  // The page sees four cores (whatever this machine has), so the worker starts two helpers.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: 4 });
  // The plan worker fetches its module first, then each helper: the first helper's is refused.
  let fetched = 0;
  await page.route('**/gpufare_plan_bg.wasm', (route) => (++fetched === 2 ? route.abort() : route.continue()));
  await page.goto(BASE);
  await page.locator('#recommended').waitFor();
  assert.equal(await page.evaluate(() => navigator.hardwareConcurrency), 4);
  const hours = async (h) => {
    await typeHours(page, h);
    await page.waitForFunction((v) => JSON.parse(localStorage.getItem('gpufare.scenario')).task.work_hours === v, h);
    await settled(page);
    assert.equal(await page.locator('#app').getAttribute('data-planner'), 'worker');
  };
  await hours(23);
  // The default catalog's first answers are priced on the page: no quick worker.
  assert.equal(fetched, 3, 'the worker and two helpers fetched the module');
  const shown = await shownPlan(page);
  // Later edits are split with the helper left; back to 23 hours, the same figures.
  await hours(9);
  await hours(23);
  assert.deepEqual(await shownPlan(page), shown);
  // The page's own plan of the same scenario, opened afresh, has the same figures to the cent.
  await samePlanOnPage(t, page, shown);
  assert.deepEqual(errors, []);
});

test('without its worker the page plans on its own and says nothing is wrong', async (t) => {
  const { page, errors } = await bareSite(t);
  // The worker's module cannot be fetched, as on a connection that drops after the first load.
  await page.route('**/gpufare_plan_bg.wasm', (route) => route.abort());
  await page.goto(BASE);
  await page.locator('#recommended').waitFor();
  const total = () => page.locator('#ranking tbody tr .total').first().textContent();
  const totalChanged = async (before) => {
    await page.waitForFunction((b) => document.querySelector('#ranking tbody tr .total').textContent !== b, before);
    await settled(page);
  };
  const before = await total();
  await page.fill('#work-hours', '300');
  await totalChanged(before);
  assert.equal(await page.locator('#app').getAttribute('data-planner'), 'page');
  // And keeps doing so for the next edits.
  const again = await total();
  await page.fill('#work-hours', '2');
  await totalChanged(again);
  assert.equal(await page.locator('#app').getAttribute('data-planner'), 'page');
  assert.deepEqual(errors, []);
});

test('the URL follows the scenario once typing pauses, and a reload straight after an edit keeps it', async (t) => {
  const page = await openSite(t);
  await page.waitForFunction(() => location.hash.startsWith('#s='));
  const before = await page.evaluate(() => location.hash);
  await page.fill('#work-hours', '77');
  // Reloaded at once: the URL may still carry the fragment from before the edit.
  await page.reload();
  await page.locator('#recommended').waitFor();
  assert.equal(await page.inputValue('#work-hours'), '77', 'the edit survived the reload');
  await page.waitForFunction((b) => location.hash !== b && location.hash.startsWith('#s='), before);
  // The fragment the page wrote is a share link of the scenario on screen.
  const link = await page.evaluate(() => location.href);
  const other = await (await browser.newContext({ locale: 'en-US' })).newPage();
  t.after(() => other.context().close());
  watch(t, other);
  await other.goto(link);
  await other.locator('#recommended').waitFor();
  assert.equal(await other.inputValue('#work-hours'), '77');
});

test('a share link reproduces the exact numbers in a fresh browser profile', async (t) => {
  const page = await openSite(t);
  await page.selectOption('#preset', 'full_finetune_multi_gpu');
  await page.waitForFunction(() => document.querySelector('#work-hours').value === '400');
  await settled(page);
  const price = page.locator('#offers-table input[id^="price-"]').first();
  const before = await page.locator('#decision').textContent();
  await page.selectOption('#out-currency', 'USD');
  await changedFrom(page, before);
  await page.click('#share');
  const link = await page.inputValue('#share-link');
  assert.ok(link.startsWith(`${BASE}#s=`), link);
  const expected = { decision: await page.locator('#decision').textContent(), rows: await ranking(page) };
  assert.ok(await price.count());

  const other = await freshProfile(t);
  const fresh = await other.newPage();
  watch(t, fresh);
  await fresh.goto(link);
  await fresh.locator('#recommended').waitFor();
  assert.equal(await fresh.locator('#decision').textContent(), expected.decision);
  assert.deepEqual(await ranking(fresh), expected.rows);
  assert.equal(await fresh.inputValue('#work-hours'), '400');
  assert.match(expected.rows[0][1], /USD$/);
});

test('a refused task field keeps the last good plan and says why beside the field', async (t) => {
  const page = await openSite(t);
  const decision = await page.locator('#decision').textContent();
  await page.fill('#vram', '-5');
  assert.equal(await page.locator('#vram-error').textContent(), 'Must not be negative.');
  assert.equal(await page.locator('#vram').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#decision').textContent(), decision, 'the plan is unchanged');
  await page.fill('#deadline', 'soon');
  assert.match(await page.locator('#deadline-error').textContent(), /not a number/);
  await page.fill('#deadline', '');
  assert.equal(await page.locator('#deadline-error').textContent(), '');
  await page.fill('#vram', '200');
  await page.waitForFunction(() => document.querySelector('#choice').textContent.includes('No offer'));
  await settled(page);
  await openPanel(page, '#infeasible');
  assert.ok((await page.locator('#infeasible li').count()) > 0);
});

test('editing a price and adding a quote change the plan', async (t) => {
  const page = await openSite(t);
  const firstRow = () => page.locator('#ranking tbody tr').first().getAttribute('data-offer');
  const top = await firstRow();
  await page.fill(`#price-${top}`, '999');
  await page.waitForFunction((id) => document.querySelector('#ranking tbody tr').dataset.offer !== id, top);
  await settled(page);
  assert.ok(!(await ranking(page)).slice(0, 5).some(([id]) => id === top), 'the repriced offer dropped down the ranking');
  await openPanel(page, '.add-offer');
  await page.selectOption('#new-gpu', 'H100-SXM');
  await page.fill('#new-vram', '80');
  await page.fill('#new-price', '0.01');
  await page.click('#add-offer');
  await page.waitForFunction(() => document.querySelector('#ranking tbody tr').dataset.offer === 'custom-1');
  await settled(page);
  assert.match(await page.locator('#ranking tbody tr').first().textContent(), /My quote/);
});

test('the page fits a phone screen and keeps a strict Content-Security-Policy', async (t) => {
  const page = await openSite(t, { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than a phone screen`);
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|https?:/);
  // Open every closed panel first: their fields are built on opening.
  await openAllPanels(page);
  await page.locator('#est-model').waitFor();
  const labelled = await page.$$eval('input:not([type=hidden]), select', (els) =>
    els.filter((e) => !(e.labels?.length || e.getAttribute('aria-label'))).map((e) => e.id || e.outerHTML.slice(0, 60)));
  assert.deepEqual(labelled, [], 'every input has a label');
  await page.screenshot({ path: join(ARTIFACTS, 'phone.png'), fullPage: false });
});

/** The numbers a budget commits to, for comparing the site's export with the CLI's output. */
function figures(budget) {
  return {
    choice: budget.decision.choice,
    recommended: budget.decision.recommended_offer,
    options: budget.options.map((o) => [o.rank, o.offer_id, o.feasible, o.hours_expected, o.hours_p90, o.rent, o.storage, o.egress, o.time_cost, o.risk_cost, o.total_expected, o.total_p90]),
    hybrid: budget.hybrid ?? [],
    break_even: budget.break_even,
  };
}

test('keyboard alone reaches the controls, and text has enough contrast', async (t) => {
  const page = await openSite(t);
  // Tab from the top: the header's buttons, then the task form, each with a visible focus ring.
  const reached = [];
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    reached.push(await page.evaluate(() => {
      const e = document.activeElement;
      const style = getComputedStyle(e);
      return { id: e.id, ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 };
    }));
  }
  const ids = reached.map((r) => r.id);
  for (const id of ['share', 'reset', 'lang-toggle', 'preset']) assert.ok(ids.includes(id), `Tab reaches #${id}: ${ids}`);
  assert.deepEqual(reached.filter((r) => !r.ring).map((r) => r.id), [], 'a focused control without a visible focus ring');
  await page.focus('#lang-toggle');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await settled(page);
  await page.focus('#preset');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).preset !== null);
  await settled(page);

  // WCAG AA: 4.5:1 for body-size text, 3:1 for large text, against the nearest opaque background.
  const low = await page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (e) => {
      for (let n = e; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const out = [];
    let checked = 0;
    for (const e of document.querySelectorAll('body *')) {
      if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const style = getComputedStyle(e);
      if (style.visibility === 'hidden' || e.getClientRects().length === 0 || e.closest('svg')) continue;
      checked += 1;
      const fg = rgb(style.color).slice(0, 3);
      const [a, b] = [lum(fg), lum(background(e))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${e.tagName.toLowerCase()}.${e.className} "${e.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
    }
    return { checked, out };
  });
  assert.ok(low.checked > 200, `only ${low.checked} text elements checked`);
  assert.deepEqual(low.out, [], 'text below the WCAG AA contrast ratio');
});

test('the site and the CLI price the same scenarios to the cent (parity)', async (t) => {
  const bin = process.env.GPUFARE_BIN;
  assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
  const page = await openSite(t);
  for (const preset of ['qlora_7b', 'inference_api', 'full_finetune_multi_gpu', 'code_check']) {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((p) => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === p, preset);
    await settled(page);
    if (preset === 'code_check') {
      // Edits and filters travel with the scenario too.
      await page.selectOption('#out-currency', 'USD');
      await page.selectOption('#filter-region', 'tier1');
      await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).filter.region_classes?.length === 1);
      await settled(page);
    }
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    const path = join(ARTIFACTS, `site-budget-${preset}.json`);
    await download.saveAs(path);
    const site = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(site.format_version, 1);
    assert.equal(site.scenario.preset, preset);
    const cli = JSON.parse(execFileSync(bin, ['plan', '--scenario', path, '--format', 'json'], { encoding: 'utf8' }));
    assert.deepEqual(figures(cli), figures(site), `${preset}: the CLI and the site disagree`);
    assert.ok(site.options.length > 0 && site.price_dates.length > 0 && site.assumptions.length > 0);
  }
});

// Preemption traces and the risk of interruptible offers. The trace is the public Can't Be Late
// V100 trace of us-east-1c (tests/fixtures/traces), attached to the default catalog's g5.xlarge
// spot offer; the SD LoRA preset can run there.
const TRACE = join(here, '../fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json');
const TRACE_NAME = 'aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json';
const SPOT = 'aws-use1-g5xl-spot';

/** The task a preset starts from, picked as a person would, once the page has taken it. */
async function choosePreset(page, preset) {
  await page.selectOption('#preset', preset);
  await page.waitForFunction((p) => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === p, preset);
  await settled(page);
}

/** The saved scenario, as the page keeps it. */
const savedScenario = (page) => page.evaluate(() => localStorage.getItem('gpufare.scenario'));

/** Attaches `file` to `offer` in the traces panel and waits for what it holds. */
async function attachTrace(page, offer, file) {
  await openPanel(page, '#traces');
  await page.setInputFiles(`#trace-file-${offer}`, file);
  await page.locator(`#traces-table dl.trace-stats[data-offer="${offer}"]`).waitFor();
}

/** `x` with `d` decimals as Rust's `{:.d}` writes it: the exact binary value, ties to even. */
function fixed(x, d) {
  const [int, frac] = Math.abs(x).toFixed(Math.min(100, d + 70)).split('.');
  const rest = frac.slice(d);
  const digits = `${int}${frac.slice(0, d)}`.split('').map(Number);
  const above = rest[0] > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
  if (above || (tie && digits[digits.length - 1] % 2 === 1)) {
    let i = digits.length - 1;
    while (i >= 0 && digits[i] === 9) digits[i--] = 0;
    if (i < 0) digits.unshift(1); else digits[i] += 1;
  }
  const s = digits.join('');
  const whole = s.slice(0, s.length - d) || '0';
  return `${x < 0 ? '-' : ''}${whole}${d ? `.${s.slice(s.length - d)}` : ''}`;
}

/** The site's ways of writing numbers (web/src/format.rs), in one language. */
function siteFormat(lang) {
  const zh = lang === 'zh';
  const unit = (n) => (zh ? `${n} 小时` : `${n} h`);
  const hoursNumber = (h) => (h >= 9999999 ? '∞' : h >= 100 ? groupThousands(fixed(h, 0)) : fixed(h, 1));
  return {
    money: (x, currency = 'CNY') => `${groupThousands(fixed(x, 2))} ${zh ? { CNY: '元', USD: '美元' }[currency] : currency}`,
    hoursNumber,
    hoursFine: (h) => unit(h < 10 ? fixed(h, 2) : h < 1000 ? fixed(h, 1) : hoursNumber(h)),
    percent: (p) => `${fixed(p * 100, 1)} %`,
    number: (x, d) => { const s = fixed(x, d); return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s; },
  };
}

/** What the site writes for each figure of a trace (web/src/trace_view.rs), from core's stats. */
function traceFacts(s, lang) {
  const f = siteFormat(lang);
  const h = f.hoursFine;
  const r = (x) => fixed(x, 3);
  const ticks = groupThousands(String(s.ticks));
  const tick = f.number(s.tick_seconds, 1);
  return lang === 'zh' ? {
    file: s.name,
    hours: `${h(s.hours)}（${ticks} 个采样，每 ${tick} 秒一个）`,
    preemptions: `${s.preemptions} 次（按实际时间每小时 ${r(s.per_wall_hour)} 次，按运行时间每小时 ${r(s.per_running_hour)} 次）`,
    running: `${h(s.running_hours)}，占 ${f.percent(s.running_share)} 的时间`,
    spells: `${s.spells.count} 段，中位数 ${h(s.spells.median_hours)}，P90 ${h(s.spells.p90_hours)}，平均 ${h(s.spells.mean_hours)}`,
    gaps: `${s.gaps.count} 个，中位数 ${h(s.gaps.median_hours)}，P90 ${h(s.gaps.p90_hours)}，平均 ${h(s.gaps.mean_hours)}`,
    fitted: `每运行小时抢占 ${r(s.fitted.rate_per_hour)} 次；空档平均 ${h(s.fitted.gap_mean_hours)}；有实例可用的时间占 ${f.percent(s.fitted.availability)}；开始时平均等待 ${h(s.fitted.start_wait_mean_hours)}才有实例`,
  } : {
    file: s.name,
    hours: `${h(s.hours)} (${ticks} samples of ${tick} s)`,
    preemptions: `${s.preemptions} (${r(s.per_wall_hour)} per wall-clock hour, ${r(s.per_running_hour)} per running hour)`,
    running: `${h(s.running_hours)}, ${f.percent(s.running_share)} of the time`,
    spells: `${s.spells.count}, median ${h(s.spells.median_hours)}, P90 ${h(s.spells.p90_hours)}, mean ${h(s.spells.mean_hours)}`,
    gaps: `${s.gaps.count}, median ${h(s.gaps.median_hours)}, P90 ${h(s.gaps.p90_hours)}, mean ${h(s.gaps.mean_hours)}`,
    fitted: `${r(s.fitted.rate_per_hour)} preemptions per running hour; gaps of ${h(s.fitted.gap_mean_hours)} on average; an instance available ${f.percent(s.fitted.availability)} of the time; ${h(s.fitted.start_wait_mean_hours)} mean wait for one at a start`,
  };
}

/** `gpufare plan ... --format json`, parsed. */
function cliPlan(args) {
  const bin = process.env.GPUFARE_BIN;
  assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
  return JSON.parse(execFileSync(bin, ['plan', ...args, '--format', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/** Checks that the risk panel shows `risk` (core's report, from the CLI) figure for figure. */
async function assertRiskShown(page, option, lang) {
  const f = siteFormat(lang);
  const risk = option.risk;
  const table = page.locator(`#policy-table[data-offer="${option.offer_id}"]`);
  await table.waitFor();
  assert.equal(await table.getAttribute('data-chosen'), option.policy, 'the chosen policy');
  assert.equal(await table.locator('tr.chosen').first().getAttribute('data-policy'), option.policy);
  let lines = 0;
  for (const p of risk.policies) {
    for (const [source, out] of [['replay', p.replay], ['model', p.model]]) {
      const row = table.locator(`tr[data-policy="${p.id}"][data-source="${source}"]`);
      if (!out) {
        assert.equal(await row.count(), 0, `${p.id}: no ${source} row without a trace`);
        continue;
      }
      lines += 1;
      const cells = await row.evaluate((tr) => Object.fromEntries([...tr.querySelectorAll('td[class]')].map((td) => [td.className.split(' ').pop(), td.textContent])));
      const expected = {
        total: f.money(out.total_expected),
        'total-p90': f.money(out.total_p90),
        hours: [out.hours_p50, out.hours_p90, out.hours_p99].map(f.hoursNumber).join(' / '),
        billed: f.hoursNumber(out.billed_hours_mean),
        moved: f.percent(out.switched_share),
        miss: out.deadline_miss_probability === undefined ? '—' : f.percent(out.deadline_miss_probability),
      };
      for (const [key, value] of Object.entries(expected)) assert.equal(cells[key], value, `${p.id} ${source} ${key}`);
    }
  }
  assert.equal(await page.locator('#risk-cdf path.cdf-line').count(), lines, 'one line per policy and source');
  assert.equal(await page.locator('#risk-cdf path.cdf-line.model').count(), risk.policies.filter((p) => p.replay).length, 'the model dashed beside each replay');
  const inputs = page.locator('#risk-inputs');
  assert.equal(await inputs.getAttribute('data-source'), risk.rate_source);
  assert.ok((await inputs.locator('dd[data-key=rate]').textContent()).startsWith(`${f.number(risk.rate_per_hour, 4)} `), 'the rate the model used');
  assert.equal(await inputs.locator('dd[data-key=gap]').textContent(), f.hoursFine(risk.gap_hours));
  assert.match(await inputs.locator('dd[data-key=notice]').textContent(), new RegExp(`^${f.number(risk.notice_seconds, 0)} `));
  assert.match(await inputs.locator('dd[data-key=fallback]').textContent(), new RegExp(risk.fallback_offer ?? '^'));
}

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) test(`a preemption trace shows what it holds, and the risk panel every policy as the CLI prices it (${locale})`, async (t) => {
  const page = await openSite(t, { locale });
  await choosePreset(page, 'sd_lora');
  await attachTrace(page, SPOT, TRACE);
  const cli = cliPlan(['--task', join(here, '../../examples/sd_lora.json'), '--trace', `${SPOT}=${TRACE}`]);
  const option = cli.options.find((o) => o.offer_id === SPOT);
  assert.ok(option.feasible && option.risk.trace, 'the CLI replays the trace on the offer');
  assert.equal(option.risk.rate_source, 'trace');

  // What was read: span, preemptions, running share, spells and gaps, the fitted model.
  const facts = page.locator(`#traces-table dl.trace-stats[data-offer="${SPOT}"]`);
  const shown = await facts.evaluate((dl) => Object.fromEntries([...dl.querySelectorAll('dd')].map((dd) => [dd.dataset.key, dd.textContent])));
  assert.deepEqual(shown, traceFacts(option.risk.trace, lang));
  assert.match(await page.locator('#traces > summary').textContent(), /\(1\)$/);

  // The risk panel on that offer: inputs with their source, every policy by replay and by model.
  await page.locator(`#traces-table tr[data-offer="${SPOT}"] button.risk-link`).click();
  assert.ok(await page.locator('#risk').evaluate((d) => d.open), 'the risk panel opens on the offer');
  await assertRiskShown(page, option, lang);
  assert.equal(await page.inputValue('#risk-offer'), SPOT);
  const rules = await page.locator('#risk-reasons li').evaluateAll((lis) => lis.map((li) => li.dataset.rule));
  assert.deepEqual(rules.sort(), ['risk_from_trace', 'spot_policy']);
  assert.ok((await page.locator('#risk-reasons').textContent()).includes(TRACE_NAME));
  assert.match(await page.locator('#risk-cdf .x-title').textContent(), lang === 'zh' ? /（小时）/ : /\(h\)/);
  assert.match(await page.locator('#risk-cdf .y-title').textContent(), /%/);
  if (lang === 'en') await page.locator('#risk').screenshot({ path: join(ARTIFACTS, 'risk-en.png') });

  // Removed, the offer's own figures are back, and the model alone is priced.
  await page.click(`#trace-remove-${SPOT}`);
  await page.waitForFunction(() => !(JSON.parse(localStorage.getItem('gpufare.scenario')).traces?.length));
  await settled(page);
  await page.locator('#risk-inputs[data-source="offer"]').waitFor();
  const plain = cliPlan(['--task', join(here, '../../examples/sd_lora.json')]).options.find((o) => o.offer_id === SPOT);
  await assertRiskShown(page, plain, lang);
  assert.equal(await page.locator('#policy-table tr[data-source="replay"]').count(), 0);
  assert.ok(await page.locator('#risk-inputs dd[data-key=source]').count(), 'the offer says where its figures come from');
});

test('the site and the CLI price a trace and a fixed policy to the cent (parity)', async (t) => {
  const page = await openSite(t);
  await choosePreset(page, 'sd_lora');
  // Fall back to on-demand after three preemptions, whatever would be cheapest.
  await page.selectOption('#spot-policy', 'fallback_after');
  await page.fill('#fallback-after', '0');
  assert.match(await page.locator('#fallback-after-error').textContent(), /between 1 and 1000/);
  await page.fill('#fallback-after', '3');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.spot_policy?.preemptions === 3);
  await settled(page);
  await page.fill('#checkpoint-save', '1.5');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.checkpoint?.save_minutes === 1.5);
  await settled(page);
  await attachTrace(page, SPOT, TRACE);
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).traces?.length === 1);
  await settled(page);

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const path = join(ARTIFACTS, 'site-budget-trace.json');
  await download.saveAs(path);
  const site = JSON.parse(readFileSync(path, 'utf8'));
  assert.equal(site.scenario.traces[0].offer_id, SPOT);
  assert.deepEqual(site.scenario.task.spot_policy, { kind: 'fallback_after', preemptions: 3 });
  const mine = site.options.find((o) => o.offer_id === SPOT);
  assert.equal(mine.policy, 'fallback_after_3');
  assert.ok(mine.risk.policies.some((p) => p.replay), 'the budget carries the replay');

  // The CLI reprices the site's scenario to the cent, trace and policy included.
  const again = cliPlan(['--scenario', path]);
  assert.deepEqual(figures(again), figures(site), 'the CLI and the site disagree');
  assert.deepEqual(again.options.find((o) => o.offer_id === SPOT).risk, mine.risk);
  // And the same task given to the CLI as a file with --trace prices that offer the same.
  const taskPath = join(ARTIFACTS, 'sd_lora-fallback-3.json');
  writeFileSync(taskPath, JSON.stringify(site.scenario.task));
  const cli = cliPlan(['--task', taskPath, '--trace', `${SPOT}=${TRACE}`]);
  const option = cli.options.find((o) => o.offer_id === SPOT);
  for (const key of ['feasible', 'hours_expected', 'hours_p90', 'rent', 'time_cost', 'risk_cost', 'total_expected', 'total_p90', 'policy']) {
    assert.deepEqual(option[key], mine[key], key);
  }
  assert.deepEqual(option.risk, mine.risk);
  // What the page shows is those figures.
  await page.locator(`#traces-table tr[data-offer="${SPOT}"] button.risk-link`).click();
  await assertRiskShown(page, option, 'en');
  const priced = await page.locator('#policy-table tbody tr').evaluateAll((trs) => [...new Set(trs.map((tr) => tr.dataset.policy))]);
  assert.deepEqual(priced, ['spot_only', 'fallback_after_3'], 'a fixed policy is priced beside staying on the offer');
  assert.match(await page.locator('#policy-table tr.chosen th.policy-name').textContent(), /move to on-demand after 3 preemptions/);
});

/** Trace files a person might pick by mistake, each with what the site must say. */
const BAD_TRACES = [
  ['empty.json', '', /^empty\.json: the trace has no samples$/],
  ['nodata.json', '{"metadata": {"gap_seconds": 32}, "data": []}', /^nodata\.json: the trace has no samples$/],
  ['zeros.json', '{"metadata": {"gap_seconds": 32}, "data": [0, 0, 0, 0]}', /^zeros\.json: no instance ever runs in this trace \(every count is 0\)$/],
  ['negative.json', '{"metadata": {"gap_seconds": 32}, "data": [1, 1, -1, 1]}', /^negative\.json: data\[2\]: -1 is not a count of instances/],
  ['fraction.json', '{"metadata": {"gap_seconds": 32}, "data": [1, 0.5, 1]}', /^fraction\.json: data\[1\]: 0\.5 is not a count of instances/],
  ['word.json', '{"metadata": {"gap_seconds": 32}, "data": [1, "one", 1]}', /^word\.json: data\[1\]: "one" is not a count of instances/],
  ['types.json', '{"metadata": {"gap_seconds": "32"}, "data": [1, 0, 1]}', /^types\.json: not a trace \(line 1, column \d+\): invalid type: string "32"/],
  ['tick0.json', '{"metadata": {"gap_seconds": 0}, "data": [1, 0, 1]}', /^tick0\.json: gap_seconds must be above 0 and at most 86400, not 0$/],
  ['counts.csv', 'timestamp,count\n0,1\n60,-2\n120,1\n', /^counts\.csv: line 3: -2 is not a count of instances/],
];

test('a bad trace is refused with its reason beside the picker, naming the file, and the plan stays as it was', async (t) => {
  const page = await openSite(t);
  await choosePreset(page, 'sd_lora');
  await attachTrace(page, SPOT, TRACE);
  await page.locator(`#traces-table tr[data-offer="${SPOT}"] button.risk-link`).click();
  await page.locator('#policy-table tr[data-source="replay"]').first().waitFor();
  const decision = await page.locator('#decision').textContent();
  const saved = await savedScenario(page);
  const rows = await ranking(page);
  const message = page.locator(`#trace-error-${SPOT}`);
  const refuse = async (name, buffer, expected) => {
    await page.setInputFiles(`#trace-file-${SPOT}`, { name, mimeType: name.endsWith('.csv') ? 'text/csv' : 'application/json', buffer });
    await message.filter({ hasText: name }).waitFor();
    assert.match(await message.textContent(), expected, name);
    assert.equal(await page.locator(`#trace-file-${SPOT}`).getAttribute('aria-describedby'), `trace-error-${SPOT}`);
    assert.equal(await savedScenario(page), saved, `${name}: the scenario is unchanged`);
    assert.equal(await page.locator('#decision').textContent(), decision, `${name}: the plan is unchanged`);
    assert.deepEqual(await ranking(page), rows);
    assert.equal(await page.locator(`dl.trace-stats[data-offer="${SPOT}"] dd[data-key=file]`).first().textContent(), TRACE_NAME, 'the trace attached before stays');
  };
  for (const [name, body, expected] of BAD_TRACES) await refuse(name, Buffer.from(body), expected);
  // Larger than core's limit: refused from its size, before it is read.
  await refuse('huge.json', Buffer.alloc(32 * 1024 * 1024 + 1, 0x20), /^huge\.json: the file is 33554433 bytes; traces up to 33554432 bytes are read$/);
  // On an offer without a trace, a refusal attaches nothing.
  const other = 'aws-use1-g6exl-spot';
  await page.setInputFiles(`#trace-file-${other}`, { name: 'zeros.json', mimeType: 'application/json', buffer: Buffer.from(BAD_TRACES[0][1]) });
  await page.locator(`#trace-error-${other}`).filter({ hasText: 'zeros.json' }).waitFor();
  assert.equal(JSON.parse(await savedScenario(page)).traces.length, 1);
  // A good file again replaces the message with what it holds.
  await page.setInputFiles(`#trace-file-${SPOT}`, TRACE);
  await page.waitForFunction((id) => document.querySelector(`#trace-error-${id}`)?.textContent === '', SPOT);
  await settled(page);
  assert.equal(await savedScenario(page), saved);
});

test('CSV and Markdown downloads carry the same numbers as the JSON one', async (t) => {
  const page = await openSite(t);
  const save = async (id, name) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
    const path = join(ARTIFACTS, name);
    await d.saveAs(path);
    return readFileSync(path, 'utf8');
  };
  const json = JSON.parse(await save('#export-json', 'budget.json'));
  const csv = await save('#export-csv', 'budget.csv');
  const md = await save('#export-md', 'budget.md');
  assert.ok(csv.startsWith('\uFEFF# gpufare budget'), 'a UTF-8 byte-order mark, then the CSV');
  const lines = csv.split('\n');
  assert.ok(lines.some((l) => l.startsWith('# price dates: ')), 'the CSV states its price dates');
  assert.ok(lines.some((l) => l.startsWith('# assumption ')), 'the CSV states its assumptions');
  const header = lines.find((l) => l.startsWith('rank,')).split(',');
  const first = lines.find((l) => l.startsWith('1,')).split(',');
  const total = Number(first[header.indexOf('total_expected')]);
  assert.equal(total, json.options[0].total_expected);
  assert.match(first[header.indexOf('total_expected')], /^\d+\.\d\d$/, 'raw numbers, no separators or currency');
  assert.ok(md.includes('## Ranked options') && md.includes('Prices as of'));
  assert.ok(md.includes(json.options[0].offer_id));

  // Each download is exactly what core writes for the same scenario: the CLI reprices the JSON
  // budget's scenario and must print the same CSV and Markdown, byte for byte.
  const bin = process.env.GPUFARE_BIN;
  assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
  const jsonPath = join(ARTIFACTS, 'budget.json');
  const cli = (format) => execFileSync(bin, ['plan', '--scenario', jsonPath, '--format', format, '--top', '15'], { encoding: 'utf8' });
  assert.equal(csv, cli('csv'), 'the site CSV differs from core\'s');
  assert.equal(md, cli('md'), 'the site Markdown differs from core\'s');
});

for (const [locale, preset] of [['en-US', null], ['zh-CN', 'full_finetune_multi_gpu']]) test(`the printout is one clean page: recommendation, ranking and basis, no inputs (${locale})`, async (t) => {
  const page = await openSite(t, { locale });
  if (preset) {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((p) => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === p, preset);
    await settled(page);
  }
  await page.emulateMedia({ media: 'print' });
  for (const id of ['#recommended', '#ranking', '#price-dates']) {
    assert.ok(await page.locator(id).isVisible(), `${id} is on the printout`);
  }
  for (const id of ['#work-hours', '#offers-table', '#share', '#export-json', '#profile-file']) {
    assert.equal(await page.locator(id).isVisible(), false, `${id} is left off the printout`);
  }
  const pdf = await page.pdf({ format: 'A4', printBackground: false });
  writeFileSync(join(ARTIFACTS, `printout-${locale}.pdf`), pdf);
  const pages = pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? [];
  assert.equal(pages.length, 1, `the printout takes ${pages.length} A4 pages`);
});

/** Serves `dir` on a loopback port of its own, so a test can stop the server. */
async function staticServer(dir) {
  const { createServer } = await import('node:http');
  const { extname, normalize } = await import('node:path');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml' };
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

test('the site loads and computes after its server is stopped (service worker)', async (t) => {
  const dist = process.env.GPUFARE_DIST;
  assert.ok(dist, 'GPUFARE_DIST must name the built site');
  const server = await staticServer(dist);
  const context = await browser.newContext({ locale: 'en-US' });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.locator('#recommended').waitFor();
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await settled(page);
  await server.stop();
  const refused = await fetch(server.url).then(() => false, () => true);
  assert.ok(refused, 'the server is really gone');
  await page.reload();
  await page.locator('#recommended').waitFor();
  // Still computing: more work changes the cheapest total.
  const before = await page.locator('#ranking tbody tr .total').first().textContent();
  await page.fill('#work-hours', '40');
  await page.waitForFunction((b) => document.querySelector('#ranking tbody tr .total').textContent !== b, before);
  await settled(page);
  // The parts loaded on first use come from the worker's cache as well; none was opened online.
  await openPanel(page, '#estimator');
  await page.locator('#est-vram').waitFor();
  await openPanel(page, '#quick-rent');
  await page.locator('#rent').waitFor();
  assert.deepEqual(errors, []);
});

test('the first load fetches only the calculator; other parts load on first use, or say why not', async (t) => {
  // No service worker here: it would fetch every part in the background for offline use.
  const context = await browser.newContext({ locale: 'en-US', serviceWorkers: 'block' });
  t.after(() => context.close());
  const page = await context.newPage();
  const wasm = new Set();
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.add(new URL(r.url()).pathname.slice(1)); });
  const foreign = [];
  page.on('request', (r) => { if (!r.url().startsWith(BASE)) foreign.push(r.url()); });
  // The estimator's chunk is made unreachable, as on a connection that drops.
  await page.route('**/split_estimator.wasm', (route) => route.abort());
  await page.goto(BASE);
  await page.locator('#recommended').waitFor();
  // The plan worker's module starts loading once the first frame is painted, so it may already
  // be on its way; it is no part of the first render.
  const worker = 'gpufare_plan_bg.wasm';
  assert.deepEqual([...wasm].filter((w) => w !== worker), ['gpufare_web_bg.wasm'], 'the first render needs the first module alone');
  await page.fill('#work-hours', '9');
  await page.waitForFunction(() => document.querySelector('#app').dataset.planner === 'worker');
  assert.ok(wasm.has(worker), `an edit is planned by the worker's module: ${[...wasm]}`);

  await openPanel(page, '#quick-rent');
  await page.locator('#rent').waitFor();
  assert.ok(wasm.has('split_rent.wasm'), `opening the rent check fetched its chunk: ${[...wasm]}`);
  assert.ok(!wasm.has('split_profiles.wasm'), 'and nothing it does not need');

  await openPanel(page, '#estimator');
  const failed = page.locator('#estimator .field-error[role=alert]');
  await failed.waitFor();
  assert.match(await failed.textContent(), /could not be loaded/);
  // The rest of the page still computes.
  const before = await page.locator('#ranking tbody tr .total').first().textContent();
  await page.fill('#work-hours', '40');
  await page.waitForFunction((b) => document.querySelector('#ranking tbody tr .total').textContent !== b, before);
  await settled(page);
  assert.deepEqual(foreign, []);
});

test('the workload estimator fills VRAM and work into the task', async (t) => {
  const page = await openSite(t);
  await openPanel(page, '#estimator');
  await page.selectOption('#est-model', 'llama-2-7b');
  await page.selectOption('#est-method', { label: 'full fine-tune (AdamW)' });
  const full = Number((await page.locator('#est-vram strong').textContent()).replace(/[^0-9.]/g, ''));
  await page.selectOption('#est-method', { label: 'QLoRA fine-tune (rank 16)' });
  const qlora = Number((await page.locator('#est-vram strong').textContent()).replace(/[^0-9.]/g, ''));
  assert.ok(qlora > 3 && qlora < 12, `7B QLoRA needs a few GiB, got ${qlora}`);
  assert.ok(full > 4 * qlora, `a full fine-tune needs far more (${full} vs ${qlora})`);
  assert.ok((await page.locator('#estimator ul.breakdown li').count()) >= 3, 'a breakdown, not just a total');
  await page.click('#est-apply');
  await page.waitForFunction((v) => Math.abs(Number(document.querySelector('#vram').value) - v) < 0.1, qlora);
  await settled(page);
  assert.notEqual(await page.inputValue('#work-hours'), '6', 'the work size came from the estimate');
});

/** `gpufare estimate llm ... --format json`, parsed. */
function cliEstimate(args) {
  const bin = process.env.GPUFARE_BIN;
  assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
  return JSON.parse(execFileSync(bin, ['estimate', 'llm', ...args, '--format', 'json'], { encoding: 'utf8' }));
}

// Issue 21: a mixture of experts (with LoRA on attention only, and served in FP8 over a whole
// machine with expert parallelism) and a sliding-window model with an 8-bit KV cache, picked in
// the estimator in each language; the VRAM it shows is the CLI's `vram_gib` for the same inputs.
// Select values are indices: methods as core's QuickMethod::ALL (0 serve bf16, 1 serve fp8,
// 2 serve int4, 3 QLoRA, 4 LoRA, 5 full), KV as KvPrecision::ALL (0 fp16, 1 fp8, 2 int4),
// targets as the estimator's list (0 all, 1 attention, 2 MLP, 3 q and v).
const MODERN = [
  {
    name: 'Qwen3-30B-A3B QLoRA, adapters on attention only',
    model: 'qwen3-30b-a3b', method: '3', targets: '1', tokens: '4096', batch: '1', gpus: '1',
    cli: ['--model', 'qwen3-30b-a3b', '--task', 'qlora', '--targets', 'attention', '--seq-len', '4096', '--micro-batch', '1'],
    arch: { en: /30\.5 B parameters, 3\.4 B active per token; mixture of experts: 8 of 128 experts per token/, zh: /参数 30\.5 B，每个 token 激活 3\.4 B；混合专家：每个 token 经过 8 \/ 128 个专家/ },
  },
  {
    name: 'Gemma 3 27B served at 32K, 8-bit KV cache, two sequences',
    model: 'gemma-3-27b', method: '0', kv: '1', tokens: '32768', batch: '2', gpus: '1',
    cli: ['--model', 'gemma-3-27b', '--context', '32768', '--concurrency', '2', '--kv-cache', 'fp8'],
    arch: { en: /sliding window of 1024 tokens on 52 of 62 layers/, zh: /滑动窗口 1024 token，62 层中 52 层为局部注意力/ },
  },
  {
    name: 'DeepSeek-V3 FP8 on 8 GPUs, expert-parallel',
    model: 'deepseek-v3', method: '1', kv: '0', tokens: '8192', batch: '1', gpus: '8', ep: true,
    cli: ['--model', 'deepseek-v3', '--weights', 'fp8', '--context', '8192', '--gpus', '8', '--expert-parallel'],
    arch: { en: /latent attention \(MLA\): caches 512 \+ 64 values per layer and token/, zh: /多头潜在注意力：每层每个 token 缓存 512 \+ 64 个值/ },
  },
];

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) {
  test(`the estimator's mixture-of-experts and sliding-window presets show the CLI's VRAM (${lang})`, async (t) => {
    const page = await openSite(t, { locale });
    await openPanel(page, '#estimator');
    await page.locator('#est-vram').waitFor();
    const shown = async () => Number(await page.locator('#est-vram').getAttribute('data-gib'));
    for (const c of MODERN) {
      await page.selectOption('#est-model', c.model);
      await page.selectOption('#est-method', c.method);
      if (c.kv) await page.selectOption('#est-kv', c.kv);
      if (c.targets) await page.selectOption('#est-targets', c.targets);
      await page.fill('#est-tokens', c.tokens);
      await page.fill('#est-batch', c.batch);
      await page.fill('#est-gpus', c.gpus);
      // The expert-parallel box is there for a mixture of experts only.
      const moe = c.model !== 'gemma-3-27b';
      assert.equal(await page.locator('#est-ep').count(), moe ? 1 : 0, `${c.name}: the expert-parallel box`);
      if (c.ep) await page.check('#est-ep');
      else if (moe) await page.uncheck('#est-ep');
      const cli = cliEstimate(c.cli);
      await page.waitForFunction((v) => Math.abs(Number(document.querySelector('#est-vram')?.dataset.gib) - v) < 1e-9, cli.vram_gib)
        .catch(async () => assert.fail(`${c.name}: the site shows ${await shown()} GiB, the CLI ${cli.vram_gib}`));
      const strong = Number((await page.locator('#est-vram strong').textContent()).replace(/[^0-9.]/g, ''));
      assert.ok(Math.abs(strong - cli.vram_gib) <= 0.05, `${c.name}: ${strong} shown for ${cli.vram_gib}`);
      assert.match(await page.locator('#est-arch').textContent(), c.arch[lang], c.name);
      // The breakdown lists the KV cache the CLI counts.
      const parts = await page.locator('#estimator ul.breakdown li').allTextContents();
      const kv = parts.find((p) => p.startsWith(lang === 'zh' ? 'KV 缓存' : 'KV cache'));
      if (cli.breakdown.kv_cache === 0) {
        assert.equal(kv, undefined, `${c.name}: no KV cache in training`);
      } else {
        const kvShown = Number(kv?.replace(/^[^:]*:/, '').replace(/[^0-9.]/g, ''));
        assert.ok(Math.abs(kvShown - cli.breakdown.kv_cache) <= 0.006, `${c.name}: ${parts} for ${cli.breakdown.kv_cache}`);
      }
    }
    // The same model on one GPU fits no single card: the smallest machine is the CLI's.
    await page.uncheck('#est-ep');
    await page.fill('#est-gpus', '1');
    const one = cliEstimate(['--model', 'deepseek-v3', '--weights', 'fp8', '--context', '8192']);
    const machine = page.locator('#est-machine');
    await machine.waitFor();
    assert.equal(await machine.getAttribute('data-offer'), one.fit.smallest_machine.offer.offer_id);
    assert.equal(Number(await machine.getAttribute('data-gpus')), one.fit.smallest_machine.gpus);
    assert.match(await machine.textContent(), lang === 'zh' ? /单卡放不下/ : /No single card holds it/);
    // A dense preset has no expert-parallel box and no machine line.
    await page.selectOption('#est-model', 'llama-3.1-8b');
    await page.locator('#est-ep').waitFor({ state: 'detached' });
    assert.equal(await page.locator('#est-machine').count(), 0);
    if (lang === 'zh') {
      await page.selectOption('#est-model', 'deepseek-v3');
      await page.locator('#est-ep').waitFor();
      const words = await englishOnPage(page, catalogData().sort((a, b) => b.length - a.length));
      assert.deepEqual(words, [], 'the estimator in Chinese has no English');
    }
  });
}

test('profiles from the probe and recorded fixtures compare side by side and feed the plan', async (t) => {
  const page = await openSite(t);
  const fixtures = ['hami-4090-neighbours.json', 'capped-a100-pcie-gen3.json', 'dedicated-h100.json'].map((f) => join(here, '../profiles', f));
  await page.setInputFiles('#profile-file', [PROFILE, ...fixtures]);
  await page.locator('#profile-compare tbody tr').nth(3).waitFor();
  const finding = (file, kind) => page.locator(`#profile-compare tr[data-file="${file}"] li[data-kind="${kind}"]`).getAttribute('data-finding');
  assert.equal(await finding('hami-4090-neighbours.json', 'slice'), 'memory_capped');
  assert.equal(await finding('hami-4090-neighbours.json', 'noisy_neighbour'), 'foreign_processes');
  assert.equal(await finding('dedicated-h100.json', 'slice'), 'whole_card');
  assert.equal(await finding('capped-a100-pcie-gen3.json', 'power_capped'), 'limit_below_default');
  await page.locator('#spread-chart').waitFor();
  await page.locator('#util-chart').waitFor();

  // Figures side by side: visible against nominal memory, the PCIe link, disk and network.
  const row = (file) => page.locator(`#profile-compare tr[data-file="${file}"]`);
  const share = Number(await row('hami-4090-neighbours.json').locator('.gpu-cell .gpu').getAttribute('data-visible-share'));
  assert.ok(share > 0.2 && share < 0.5, `a HAMi cap shows a third of a 24 GB card, got ${share}`);
  assert.match(await row('hami-4090-neighbours.json').locator('.gpu-cell').textContent(), /GiB visible of 24 GB/);
  assert.ok(Number(await row('dedicated-h100.json').locator('.gpu-cell .gpu').getAttribute('data-visible-share')) > 0.95);
  assert.equal(await row('capped-a100-pcie-gen3.json').locator('.pcie-cell [data-degraded]').getAttribute('data-degraded'), 'true');
  assert.match(await row('capped-a100-pcie-gen3.json').locator('.pcie-cell').textContent(), /Gen3 ×8 \(card: Gen4 ×8\)/);
  assert.equal(await row('dedicated-h100.json').locator('.pcie-cell [data-degraded]').getAttribute('data-degraded'), 'false');
  const probeFile = PROFILE.split('/').pop();
  const probe = JSON.parse(readFileSync(PROFILE, 'utf8'));
  const disk = await row(probeFile).locator('.disk-cell').textContent();
  const rate = (n) => Math.round(n).toLocaleString('en-US');
  assert.ok(disk.includes(`seq. read: ${rate(probe.disk.seq_read.mb_per_s)} MB/s`), `the probe's disk figures: ${disk}`);
  assert.ok(disk.includes(`${rate(probe.disk.rand_read.iops)} IOPS`), disk);
  const net = await row(probeFile).locator('.net-cell').textContent();
  const upload = probe.network.iperf3.find((r) => r.direction === 'upload').mbit_per_s;
  assert.ok(net.includes(`iperf3 upload: ${rate(upload)} Mbit/s`), `the probe's network figures: ${net}`);
  assert.match(net, /TCP connect \(median\): [\d.]+ ms/);
  assert.equal(await row('dedicated-h100.json').locator('.disk-cell').textContent(), 'not measured');

  // The same file again is recognised.
  await page.setInputFiles('#profile-file', fixtures[2]);
  await page.locator('#profile-error').filter({ hasText: 'already loaded' }).waitFor();
  assert.equal(await page.locator('#profile-compare tbody tr').count(), 4);

  // Measured figures replace the assumptions for the A100 offers.
  await page.selectOption('#preset', 'qlora_7b');
  await page.selectOption('#filter-shared', 'dedicated');
  await page.fill('#filter-text', 'A100-80GB');
  await page.waitForFunction(() => document.querySelectorAll('#ranking tbody tr').length > 0);
  await settled(page);
  assert.match(await page.locator('#ranking tbody tr').first().textContent(), /assumed/);
  assert.equal(await page.locator('#profile-compare tr[data-file="capped-a100-pcie-gen3.json"] .applies-to').textContent(), 'A100-80GB · dedicated');
  await page.locator('#profile-compare tr[data-file="capped-a100-pcie-gen3.json"] input.use-measured').check();
  await page.waitForFunction(() => document.querySelector('#ranking tbody tr').textContent.includes('measured'));
  await settled(page);
  assert.match(await page.locator('#ranking tbody tr').first().textContent(), /×0\.98 · P99 ×0\.99 \(measured\)/);
  await page.locator('section[aria-labelledby="profile-heading"]').screenshot({ path: join(ARTIFACTS, 'compare.png') });
});

test('measured disk and network rates from a profile slow the plan of a task that reads data', async (t) => {
  // A recorded A100 machine with this run's real disk and network figures in place of none.
  const probe = JSON.parse(readFileSync(PROFILE, 'utf8'));
  const machine = JSON.parse(readFileSync(join(here, '../profiles/capped-a100-pcie-gen3.json'), 'utf8'));
  machine.disk = probe.disk;
  machine.network = probe.network;
  const file = join(ARTIFACTS, 'a100-with-this-disk.json');
  writeFileSync(file, JSON.stringify(machine));

  const page = await openSite(t);
  await page.selectOption('#preset', 'qlora_7b');
  await page.selectOption('#filter-shared', 'dedicated');
  await page.fill('#filter-text', 'A100-80GB');
  await page.waitForFunction(() => document.querySelectorAll('#ranking tbody tr').length > 0);
  await settled(page);
  // Ten hours of reading at the measured rate: far longer than the GPU work.
  const readGb = Math.round(probe.disk.seq_read.mb_per_s * 3600 * 10 / 1000);
  await page.fill('#data-read-gb', String(readGb));
  const first = page.locator('#ranking tbody tr').first();
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.data_read_gb > 0);
  await settled(page);
  assert.doesNotMatch(await first.textContent(), /IO \(measured\)/, 'no measured rate yet: IO is assumed free');
  const hoursBefore = await first.locator('td').nth(3).textContent();

  await page.setInputFiles('#profile-file', file);
  await page.locator('#profile-compare tr[data-file="a100-with-this-disk.json"] input.use-measured').check();
  await page.waitForFunction(() => document.querySelector('#ranking tbody tr').textContent.includes('IO (measured)'));
  await settled(page);
  const text = await first.textContent();
  assert.match(text, /IO \(measured\) \+\d+(\.\d)? h/);
  assert.notEqual(await first.locator('td').nth(3).textContent(), hoursBefore, 'the run takes longer');
  const hours = Number((await first.locator('td').nth(3).textContent()).split(' ')[0]);
  // Ten hours of reading times the measured run-time multiplier (0.98).
  assert.ok(hours >= 9.5, `reading 10 h of data sets the pace: ${hours} h`);
  assert.match(await first.locator('.badge.warn').getAttribute('title'), /the disk limits each run/);
});

test('a SkyPilot vms.csv imports into the offers with a report, and the catalog downloads', async (t) => {
  const page = await openSite(t);
  await page.setInputFiles('#catalog-file', join(here, '../fixtures/skypilot/aws-vms.csv'));
  await page.locator('#import-report li').first().waitFor();
  const report = await page.locator('#import-report').textContent();
  assert.match(report, /aws-vms\.csv: 4 offers imported/);
  assert.match(report, /m5\.large: no accelerator/);
  assert.match(report, /trn1\.2xlarge: GPU "Trainium" is not in the spec table/);
  assert.match(report, /no real discount/);
  await page.fill('#filter-text', 'g5-xlarge');
  await page.locator('#offers-table tr[data-offer="aws-g5-xlarge-us-east-1-spot"]').waitFor();
  assert.equal(await page.locator('#offers-table tbody tr').count(), 2, 'the on-demand and the spot row');
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('#catalog-export-csv')]);
  const path = join(ARTIFACTS, 'catalog.csv');
  await d.saveAs(path);
  const text = readFileSync(path, 'utf8');
  assert.ok(text.startsWith('\uFEFF'), 'a UTF-8 byte-order mark, so that Excel reads the file as UTF-8');
  const csv = text.slice(1).trim().split('\n');
  assert.ok(csv[0].startsWith('id,provider,region,'));
  assert.equal(csv.length, 3, 'the filtered catalog: a header and two offers');
  assert.ok(csv.some((l) => l.startsWith('aws-g5-xlarge-us-east-1-spot,aws,')), 'the provider is named after the file');
});


test('the Chinese page has no English in any panel or error', async (t) => {
  const data = [...catalogData(), 'probe-profile.json', 'hami-4090-neighbours.json', 'capped-a100-pcie-gen3.json', 'mig-a100-1g10gb.json', 'vgpu-v100d-8c.json',
    'broken.json', 'nvitop.json', 'future.json', 'partial.json', 'bad-quotes.csv', 'aws-vms.csv', TRACE_NAME, FLEET_NAME, ...BAD_TRACES.map(([name]) => name)]
    .sort((a, b) => b.length - a.length);
  const found = {};
  const check = async (page, where) => {
    const words = await englishOnPage(page, data);
    if (words.length) found[where] = words;
    assert.ok(!(await page.locator('body').innerText()).includes('??'), `${where}: a label without wording`);
  };
  const page = await openSite(t, { locale: 'zh-CN' });
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
  // Every scenario, with every panel open.
  await openAllPanels(page);
  await page.locator('#est-model').waitFor();
  await page.locator('#rent').waitFor();
  await page.locator('#traces-table, #traces-none').first().waitFor();
  await page.locator('#policy-table, #risk-none').first().waitFor();
  for (const preset of ['course_project', 'sd_trial', 'sd_batch', 'sd_lora', 'qlora_7b', 'full_finetune_multi_gpu', 'inference_api', 'burst_rendering', 'data_cleaning', 'code_check']) {
    await page.selectOption('#preset', preset);
    await page.waitForFunction((p) => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === p, preset);
    await settled(page);
    await openAllPanels(page);
    await check(page, `preset ${preset}`);
  }
  // A trace attached to a spot offer, its risk and policies, every policy choice and every
  // refused trace.
  await choosePreset(page, 'sd_lora');
  await attachTrace(page, SPOT, TRACE);
  await page.locator(`#traces-table tr[data-offer="${SPOT}"] button.risk-link`).click();
  await page.locator(`#policy-table[data-offer="${SPOT}"] tr[data-source="replay"]`).first().waitFor();
  await check(page, 'a trace and the risk it gives');
  for (const policy of ['spot_only', 'fallback_after', 'deadline_aware', 'on_demand_only', 'auto']) {
    await page.selectOption('#spot-policy', policy);
    if (policy === 'fallback_after') {
      await page.fill('#fallback-after', '0');
      await page.locator('#fallback-after-error').filter({ hasText: /\S/ }).waitFor();
    }
    await check(page, `policy ${policy}`);
  }
  for (const [name, body] of BAD_TRACES) {
    await page.setInputFiles(`#trace-file-${SPOT}`, { name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await page.locator(`#trace-error-${SPOT}`).filter({ hasText: name }).waitFor();
    assert.match(await page.locator(`#trace-error-${SPOT}`).textContent(), /[\u4e00-\u9fff]/);
    await check(page, `trace ${name}`);
  }
  // No offer can run it: every veto, summed up.
  await page.fill('#vram', '200');
  await page.waitForFunction(() => document.querySelector('#decision').dataset.choice === 'no_feasible_offer');
  await settled(page);
  await check(page, 'no feasible offer');
  // Every error path a person can reach.
  await page.fill('#vram', '-5');
  await page.locator('#vram-error').filter({ hasText: /\S/ }).waitFor();
  await page.fill('#hours', '-1');
  await page.fill('#price', 'abc');
  await page.fill('#minimum', 'NaN');
  await page.locator('#minimum-error').filter({ hasText: /\S/ }).waitFor();
  await page.fill('#new-vram', '0');
  await page.click('#add-offer');
  await page.locator('#add-offer-error').waitFor();
  const bad = [
    ['broken.json', '{"format_version": 1, "tool": '],
    ['nvitop.json', '{"devices": []}'],
    ['future.json', '{"format_version": 99, "tool": {"name": "gpufare", "version": "9.0.0"}}'],
    ['partial.json', '{"format_version": 1, "tool": {"name": "gpufare", "version": "0.1.0"}}'],
  ];
  for (const [name, body] of bad) {
    await page.setInputFiles('#profile-file', { name, mimeType: 'application/json', buffer: Buffer.from(body) });
    await page.locator('#profile-error').filter({ hasText: name }).waitFor();
    await check(page, `profile ${name}`);
  }
  await page.setInputFiles('#catalog-file', { name: 'bad-quotes.csv', mimeType: 'text/csv', buffer: Buffer.from('id,provider,gpu,gpu_count,tenancy,billing_mode,price,currency\nq1,Me,A10,1,dedicated,monthly,abc,CNY\n') });
  await page.locator('#import-report li').first().waitFor();
  await check(page, 'a refused catalog');
  await page.setInputFiles('#catalog-file', join(here, '../fixtures/skypilot/aws-vms.csv'));
  await page.locator('#import-report li').nth(2).waitFor();
  await check(page, 'a SkyPilot import with skipped rows');
  // Profiles side by side, verdicts and evidence.
  const fixtures = ['hami-4090-neighbours.json', 'capped-a100-pcie-gen3.json', 'mig-a100-1g10gb.json', 'vgpu-v100d-8c.json'].map((f) => join(here, '../profiles', f));
  await page.setInputFiles('#profile-file', [PROFILE, ...fixtures]);
  await page.locator('#profile-compare tbody tr').nth(4).waitFor();
  await check(page, 'profiles compared');
  // A fleet with a damaged line and a duplicate: its groups, outliers and nodes, a node opened.
  await openFleet(page, fleetFile(50));
  await page.locator('#fleet-damaged li').waitFor();
  await page.locator('#fleet-evidence').waitFor();
  await page.locator(`#fleet-nodes .wrow[data-node="${nodeName(3)}"] button.node-link`).click();
  await page.locator(`#profile-compare tr[data-file^="${nodeName(3)} "]`).waitFor();
  await check(page, 'a fleet');
  await page.fill('#fleet-k', 'x');
  await page.locator('#fleet-k-error').filter({ hasText: /\S/ }).waitFor();
  await check(page, 'a bad outlier threshold');

  // A share link that cannot be read says why, in Chinese.
  const task = JSON.parse(readFileSync(join(here, '../../examples/qlora_7b.json'), 'utf8'));
  task.work_hours = 5e6;
  const scenario = { format_version: 1, task, settings: { currency: 'CNY', cny_per_usd: '7.2', seed: 1, trials: 200 } };
  const link = Buffer.from(JSON.stringify(scenario)).toString('base64url');
  for (const fragment of [`#s=${link}`, '#s=%%%']) {
    // Opened afresh in a tab of its own: a tab that had the site open already could mirror its
    // own scenario over the pasted fragment before a reload (a race seen on a loaded CI machine).
    const opened = await openSite(t, { locale: 'zh-CN' });
    const other = await opened.context().newPage();
    watch(t, other);
    await opened.close();
    await other.goto(`${BASE}${fragment}`);
    await other.locator('#link-error').waitFor();
    assert.match(await other.locator('#link-error').textContent(), /[\u4e00-\u9fff]/);
    await check(other, `link ${fragment.slice(0, 12)}`);
  }
  // A part of the site that cannot be loaded says so, in Chinese.
  const context = await browser.newContext({ locale: 'zh-CN', serviceWorkers: 'block' });
  t.after(() => context.close());
  const blocked = await context.newPage();
  await blocked.route('**/split_estimator.wasm', (route) => route.abort());
  await blocked.goto(BASE);
  await blocked.locator('#recommended').waitFor();
  await openPanel(blocked, '#estimator');
  await blocked.locator('#estimator .field-error[role=alert]').waitFor();
  await check(blocked, 'a part that failed to load');
  assert.deepEqual(found, {}, 'English words on the Chinese page');
});

// ---- Fleets (issue 19): a fleet file of 1,000 nodes on the site ----

/** A node's host name, as the generated fleet names them. */
const nodeName = (i) => `node-${String(i).padStart(4, '0')}`;

/** Planted outliers: two nodes with half the GEMM TFLOPS of their group, one with half the host-to-GPU copy rate. */
const PLANTED = {
  [nodeName(10)]: ['gemm_tflops', (p) => { p.benchmarks[0].achieved_tflops /= 2; }],
  [nodeName(505)]: ['gemm_tflops', (p) => { p.benchmarks[0].achieved_tflops /= 2; }],
  [nodeName(900)]: ['h2d_gb_s', (p) => { p.benchmarks[0].h2d_gbs /= 2; }],
};
const FLEET_BASES = ['capped-a100-pcie-gen3.json', 'dedicated-h100.json', 'hami-4090-neighbours.json', 'mig-a100-1g10gb.json', 'vgpu-v100d-8c.json'];

/**
 * A fleet file (JSON lines) of `n` nodes made from the recorded profiles, taken in turn, each with
 * its own host name, GPU UUIDs and time, and ±1 % noise on its measured rates; the planted nodes
 * changed; then a duplicate of the first node and a damaged line.
 */
function fleetFile(n) {
  const bases = FLEET_BASES.map((f) => JSON.parse(readFileSync(join(here, '../profiles', f), 'utf8')));
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const lines = [];
  for (let i = 0; i < n; i++) {
    const p = structuredClone(bases[i % bases.length]);
    p.host.hostname = nodeName(i);
    p.created_at = new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString();
    p.gpus.forEach((g, j) => { g.uuid = `GPU-${i.toString(16).padStart(8, '0')}-${j}aa-4e2a-9c1d-${String(i * 7 + j).padStart(12, '0')}`; });
    for (const b of p.benchmarks ?? []) {
      if (b.achieved_tflops) b.achieved_tflops = +(b.achieved_tflops * (1 + (rand() - 0.5) * 0.02)).toFixed(2);
      if (b.h2d_gbs) b.h2d_gbs = +(b.h2d_gbs * (1 + (rand() - 0.5) * 0.02)).toFixed(3);
    }
    PLANTED[p.host.hostname]?.[1](p);
    lines.push(JSON.stringify(p));
  }
  lines.push(lines[0]);
  lines.push(lines[1].slice(0, 200));
  return Buffer.from(lines.join('\n') + '\n');
}

const FLEET_NAME = 'fleet-1000.jsonl';

/**
 * Opens a fleet file and returns the milliseconds from the file input's change event to the
 * first frame painted with the group table (stamped inside the page).
 */
async function openFleet(page, buffer, name = FLEET_NAME) {
  await page.evaluate(() => {
    window.__fleet = {};
    const input = document.querySelector('#fleet-file');
    input.addEventListener('change', () => {
      window.__fleet.opened = performance.now();
      const seen = () => document.querySelector('#fleet-groups tbody tr');
      const stamp = () => requestAnimationFrame(() => setTimeout(() => { window.__fleet.painted = performance.now(); }, 0));
      const observer = new MutationObserver(() => { if (seen()) { observer.disconnect(); stamp(); } });
      observer.observe(document.body, { childList: true, subtree: true });
    }, { capture: true, once: true });
  });
  await page.setInputFiles('#fleet-file', { name, mimeType: 'application/json', buffer });
  await page.waitForFunction(() => window.__fleet.painted !== undefined, null, { timeout: 120000 });
  await settled(page);
  return page.evaluate(() => window.__fleet.painted - window.__fleet.opened);
}

/** Sets the outlier threshold k and returns the milliseconds to the first frame painted after it. */
function setK(page, k) {
  return page.evaluate((k) => new Promise((resolve) => {
    const input = document.querySelector('#fleet-k');
    const t0 = performance.now();
    input.value = k;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
  }), k);
}

/** Rows of a windowed list matching `selector`, after narrowing the lists to `node`. */
async function findNode(page, node) {
  await page.fill('#fleet-filter', node);
  await page.waitForFunction((n) => [...document.querySelectorAll('#fleet-nodes .wrow')].every((r) => r.dataset.node.includes(n)), node);
  await settled(page);
}

const fleetFigures = {};

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) {
  test(`a 1,000-node fleet file: groups, planted outliers, a click into a node, the plan uses its medians (${lang})`, async (t) => {
    const page = await openSite(t, { locale });
    const buffer = fleetFile(1000);
    const before = await page.locator('#decision').textContent();
    const painted = await openFleet(page, buffer);
    // One row per group: every recorded profile is its own group of 200 nodes.
    const groups = await page.$$eval('#fleet-groups tbody tr', (rows) => rows.map((r) => [r.dataset.group, Number(r.querySelector('td.nodes').textContent.replace(/,/g, ''))]));
    t.diagnostic(`groups: ${JSON.stringify(groups)}`);
    assert.equal(groups.length, FLEET_BASES.length);
    assert.ok(groups.every(([, n]) => n === 200), 'each group holds 200 nodes');
    assert.ok(groups.some(([id]) => id.startsWith('A100-80GB/')), 'the A100 group');
    // The spread of GEMM TFLOPS is drawn for the group that measured it.
    const a100 = page.locator('#fleet-groups tr', { has: page.locator('li[data-figure="gemm_tflops"]') });
    assert.equal(await a100.count(), 1);
    assert.equal(await a100.locator('li[data-figure="gemm_tflops"] svg rect.box').count(), 1);
    const summary = await page.locator('#fleet-summary').textContent();
    t.diagnostic(summary);
    assert.match(summary, lang === 'en' ? /1,000 nodes in 5 groups.*1 lines not read, 1 duplicates dropped/ : /1,000 个节点，分为 5 组.*1 行未能读取，去除重复 1 个/);
    // Worded from core's typed error (the line and the profile's own error), in the page's language.
    const damagedLine = page.locator('#fleet-damaged li');
    assert.equal(await damagedLine.getAttribute('data-line'), '1002');
    assert.match(await damagedLine.textContent(), lang === 'en' ? /fleet-1000\.jsonl: line 1002: This file is not valid JSON \(line 1, column \d+/ : /fleet-1000\.jsonl: 第 1002 行：该文件不是有效的 JSON（/);
    // Every planted outlier is listed with its reason; no other node is out of its band.
    for (const [node, [figure]] of Object.entries(PLANTED)) {
      await findNode(page, node);
      const row = page.locator(`#fleet-outliers .wrow[data-node="${node}"][data-check="${figure}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-reason'), 'below_band');
      assert.match(await row.textContent(), lang === 'en' ? /below the band/ : /低于正常区间/);
    }
    await page.fill('#fleet-filter', '');
    const banded = await page.evaluate(async () => {
      // Scroll the windowed outlier list through and collect every row drawn.
      const list = document.querySelector('#fleet-outliers');
      const seen = new Set();
      for (let top = 0; top <= list.scrollHeight; top += list.clientHeight / 2) {
        list.scrollTop = top;
        list.dispatchEvent(new Event('scroll'));
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        for (const r of list.querySelectorAll('.wrow')) if (r.dataset.reason !== 'verdict') seen.add(r.dataset.node);
      }
      return [...seen].sort();
    });
    assert.deepEqual(banded, Object.keys(PLANTED).sort(), 'the nodes out of their band are the planted ones');
    // The CLI's report and its Prometheus file name the same outliers for the same file.
    const dir = mkdtempSync(join(tmpdir(), 'gpufare-fleet-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const fleetPath = join(dir, 'fleet-1000.jsonl');
    const promPath = join(dir, 'fleet.prom');
    writeFileSync(fleetPath, buffer);
    const report = JSON.parse(execFileSync(process.env.GPUFARE_BIN, ['fleet', 'report', fleetPath, '--format', 'json', '--prometheus', promPath], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    const cliBanded = [...new Set(report.outliers.filter((o) => o.reason !== 'verdict').map((o) => o.node))].sort();
    assert.deepEqual(cliBanded, banded, 'the CLI report finds the same outliers as the site');
    const promBanded = [...new Set(readFileSync(promPath, 'utf8').split('\n')
      .filter((l) => l.startsWith('gpufare_outlier{') && !l.includes('reason="verdict"'))
      .map((l) => l.match(/host="([^"]*)"/)[1]))].sort();
    assert.deepEqual(promBanded, banded, 'the Prometheus file names the same outliers as the site');
    // A warning every node of a group carries (the capped A100s' Gen3 slots and power caps) is one
    // group finding with its count, not 200 outliers; the site lists what the CLI lists.
    const siteFindings = await page.$$eval('#fleet-findings li', (items) => items.map((li) => `${li.dataset.group} ${li.dataset.kind} ${li.dataset.nodes}`).sort());
    const cliFindings = report.group_findings.map((f) => `${f.group} ${f.verdict} ${f.nodes}`).sort();
    t.diagnostic(`group findings: ${JSON.stringify(cliFindings)}`);
    assert.deepEqual(siteFindings, cliFindings);
    assert.ok(cliFindings.some((f) => /^A100-80GB\/whole_card pcie_degraded 200$/.test(f)), 'the shared slot is a group finding');
    assert.ok(!report.outliers.some((o) => o.check === 'pcie_degraded' || o.verdict === 'pcie_degraded'), 'and no node is an outlier for it');
    assert.match(await page.locator('#fleet-findings li').first().textContent(), lang === 'en' ? /of 200 nodes/ : /200 个节点中的/);
    // Only the rows in view are drawn.
    assert.ok(await page.locator('#fleet-nodes .wrow').count() <= 30, 'the node list is windowed');
    // A larger k widens the band: the halved TFLOPS stay out, and the change takes one frame.
    const changed = await setK(page, '1000');
    await findNode(page, nodeName(10));
    assert.equal(await page.locator(`#fleet-outliers .wrow[data-node="${nodeName(10)}"][data-check="gemm_tflops"]`).count(), 0, 'k = 1000 keeps every figure in its band');
    await setK(page, '5');
    await page.locator(`#fleet-outliers .wrow[data-node="${nodeName(10)}"][data-check="gemm_tflops"]`).waitFor();
    await page.fill('#fleet-k', '0');
    await page.locator('#fleet-k-error').filter({ hasText: /\S/ }).waitFor();
    assert.match(await page.locator('#fleet-k-error').textContent(), lang === 'en' ? /above 0/ : /大于 0/);
    await page.fill('#fleet-k', '5');
    fleetFigures[lang] = { painted, changed };
    t.diagnostic(`open to painted group table: ${painted.toFixed(0)} ms; k changed to painted outlier list: ${changed.toFixed(0)} ms`);
    // A click on a node opens its own comparison view.
    await page.locator(`#fleet-nodes .wrow[data-node="${nodeName(10)}"] button.node-link`).click();
    const compare = page.locator(`#profile-compare tr[data-file="${nodeName(10)} (${FLEET_NAME}:11)"]`);
    await compare.waitFor();
    assert.match(await compare.locator('.gpu-cell').textContent(), /A100/);
    // The plan uses the fleet's medians, and the page says so.
    assert.ok(await page.locator('#fleet-use').isChecked());
    assert.match(await page.locator('#fleet-evidence').textContent(), lang === 'en' ? /Fleet evidence replaced the assumption for: .*A100-80GB · dedicated/ : /集群实测数据已替代以下方案的假设：.*A100-80GB · 独享/);
    const measured = await page.evaluate(() => JSON.parse(localStorage.getItem('gpufare.scenario')).measured ?? []);
    assert.ok(measured.some((m) => m.gpu === 'A100-80GB' && m.slowdown?.source === 'measured'), JSON.stringify(measured));
    await page.locator('#fleet-use').uncheck();
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).measured ?? []).length === 0);
    await settled(page);
    assert.equal(await page.locator('#fleet-evidence').count(), 0);
    assert.ok(before.length > 0);
    if (lang === 'zh') {
      const data = [...catalogData(), FLEET_NAME].sort((a, b) => b.length - a.length);
      assert.deepEqual(await englishOnPage(page, data), [], 'English words on the Chinese page');
    }
    await page.locator('#fleet').screenshot({ path: join(ARTIFACTS, `fleet-${lang}.png`) });
  });
}

test('break-even figures are read against their range, and a quote of your own is named in them', async (t) => {
  const page = await openSite(t);
  // The default 7B QLoRA on the re-derived catalog (dated prices, issue 30): a yearly plan would
  // need 53 months a year, and the dedicated card (AutoDL's H800) is cheaper than the shared
  // offers at every work size, so the page says "at any work size", not a crossing point.
  assert.equal(await page.locator('#breakeven-yearly').getAttribute('data-payoff'), 'never');
  assert.match(await page.locator('#breakeven-yearly').textContent(), /never beats monthly within a year/);
  assert.equal(await page.locator('#breakeven-run').getAttribute('data-payoff'), 'always');
  assert.match(await page.locator('#breakeven-run').textContent(), /Dedicated beats shared at any work size/);
  assert.match(await page.locator('#chart-run .x-title').textContent(), /Work \(hours on the reference GPU/);
  assert.match(await page.locator('#chart-run .y-title').textContent(), /Total \(CNY\)/);
  // The chart's top value is drawn inside the plot: the whole number shows.
  const top = await page.locator('#chart-run .y-max').textContent();
  const box = await page.locator('#chart-run .y-max').boundingBox();
  const chart = await page.locator('#chart-run').boundingBox();
  assert.ok(box.x >= chart.x, `the top value ${top} starts inside the chart`);
  // A cheap monthly quote of one's own becomes the monthly side of the break-even, by its name.
  await openPanel(page, '.add-offer');
  await page.selectOption('#new-gpu', 'A100-80GB');
  await page.fill('#new-vram', '80');
  await page.selectOption('#new-billing', 'monthly');
  await page.fill('#new-price', '10');
  await page.click('#add-offer');
  await page.waitForFunction(() => document.querySelector('#chart-monthly .legend-b')?.textContent.includes('My quote'));
  await settled(page);
  assert.doesNotMatch(await page.locator('#chart-monthly').textContent(), /custom-1/);
});
