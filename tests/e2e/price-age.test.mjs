// Age on every answer (issue 30): the offers table shows each price's date, its age counted to the
// browser's today and the mark of its evidence; the recommendation shows its price's age, and a
// caveat when that price is an estimate or more than 180 days old. In English and in Chinese.
//
// The default catalog is re-derived from time to time, so its rows are read from
// core/data/catalog.csv here, and every age is computed in this test from the browser's own date:
// the test holds on any day the suite runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './browser.mjs';
import { csvRows } from './language.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');
/** core's STALE_PRICE_DAYS: a recommended price older than this many days gets a caveat. */
const STALE_DAYS = 180;

/** Each evidence's mark, as the site writes it in each language. */
const MARKS = {
  quote: { en: 'quote', zh: '报价' },
  official: { en: 'official', zh: '官方' },
  catalog: { en: 'catalog', zh: '目录' },
  secondary: { en: 'secondary', zh: '二手报价' },
  estimate: { en: 'estimate', zh: '估算' },
};
const LANGS = [['en-US', 'en'], ['zh-CN', 'zh']];

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Opens `url` in a fresh context in `locale`, failing the test on any page error. */
const open = (t, url, locale) => openPage(browser, t, url, locale);

/** Rows of a CSV file (quoted fields, `#` comment lines skipped) as objects by header name. */
function csvObjects(text) {
  const [header, ...body] = csvRows(text);
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

const catalog = () => csvObjects(readFileSync(join(here, '../../core/data/catalog.csv'), 'utf8'));

/** The browser's today as [year, month, day] in its own time zone (the site's clock). */
const browserToday = (page) => page.evaluate(() => {
  const d = new Date();
  return [d.getFullYear(), d.getMonth() + 1, d.getDate()];
});

/** Whole days from `asOf` (a day, or a month counted from its first day) to `today`, never below 0. */
function ageDays(asOf, [y, m, d]) {
  const [ay, am, ad] = asOf.split('-').map(Number);
  const days = (Date.UTC(y, m - 1, d) - Date.UTC(ay, am - 1, ad || 1)) / 86_400_000;
  return Math.max(0, Math.round(days));
}

const iso = ([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

/** A price's age in words, as the site writes it. */
const ageWords = (days, lang) => (lang === 'zh' ? `${days} 天前` : `${days} ${days === 1 ? 'day' : 'days'} old`);

/** The evidence a catalog row has: its own, or `estimate` for an estimated row that gives none. */
const evidenceOf = (row) => (row.estimate === 'true' ? 'estimate' : row.price_evidence || null);

for (const [locale, lang] of LANGS) {
  test(`the offers table shows every default price's date, age and evidence (${locale})`, async (t) => {
    const page = await open(t, BASE, locale);
    const today = await browserToday(page);
    const rows = catalog();
    assert.ok(rows.length > 20, 'the default catalog is read');
    const shown = await page.$$eval('#offers-table tbody tr', (trs) => trs.map((tr) => {
      const cell = tr.querySelector('td.price-date');
      const badge = cell?.querySelector('.badge.evidence');
      return {
        id: tr.dataset.offer,
        asOf: cell?.dataset.asOf,
        ageDays: cell?.dataset.ageDays,
        evidence: cell?.dataset.evidence ?? null,
        stale: cell?.dataset.stale,
        text: cell?.textContent,
        age: cell?.querySelector('.price-age')?.textContent,
        ageWarn: cell?.querySelector('.price-age')?.classList.contains('warn'),
        mark: badge?.textContent ?? null,
        tip: badge?.getAttribute('title') ?? '',
      };
    }));
    const byId = new Map(shown.map((s) => [s.id, s]));
    let marked = 0;
    let stale = 0;
    for (const row of rows) {
      const s = byId.get(row.id);
      assert.ok(s, `${row.id} is in the offers table`);
      const age = ageDays(row.as_of, today);
      assert.equal(s.asOf, row.as_of, `${row.id}: the price's date`);
      assert.equal(s.ageDays, String(age), `${row.id}: its age to ${iso(today)}`);
      assert.ok(s.text.startsWith(row.as_of), `${row.id}: the date is shown: ${s.text}`);
      assert.equal(s.age, ageWords(age, lang), `${row.id}: the age with its unit`);
      assert.equal(s.stale, String(age > STALE_DAYS), `${row.id}: stale or not`);
      assert.equal(s.ageWarn, age > STALE_DAYS, `${row.id}: an old price is marked`);
      if (age > STALE_DAYS) stale++;
      const evidence = evidenceOf(row);
      assert.equal(s.evidence, evidence, `${row.id}: its evidence`);
      if (evidence) {
        marked++;
        assert.equal(s.mark, MARKS[evidence][lang], `${row.id}: the evidence mark`);
        // The mark's tooltip names the source (and how an estimate was made).
        assert.ok(s.tip.includes(row.source), `${row.id}: the tooltip gives the source: ${s.tip}`);
        if (row.estimate === 'true' && row.estimate_note) assert.ok(s.tip.includes(row.estimate_note), `${row.id}: the estimate's note`);
      } else {
        assert.equal(s.mark, null, `${row.id}: no mark without evidence`);
      }
    }
    assert.ok(marked > 0, 'some rows carry an evidence mark');
    // Stale rows exist in today's catalog, but a freshly re-derived one may have none: the count
    // is only reported, the rule itself is checked row by row above.
    t.diagnostic(`${marked} evidence marks, ${stale} prices more than ${STALE_DAYS} days old on ${iso(today)}`);
  });
}

/** A dedicated RTX 4090 offer of the test's own, priced far below any catalog row. */
function ownOffer({ id, asOf, evidence, estimate }) {
  return {
    id,
    provider: 'AgeCheck',
    region: { id: 'custom', name: 'custom', class: 'tier1', rtt_ms: 10 },
    gpu: 'RTX4090',
    gpu_count: 1,
    tenancy: 'dedicated',
    gpu_fraction: 1,
    vram_gib: 24,
    billing_mode: 'pay_as_you_go',
    price: '0.10',
    currency: 'CNY',
    granularity: 'second',
    storage_per_gb_month: '0',
    egress_per_gb: '0',
    system_disk_per_month: '0',
    security: [],
    as_of: asOf,
    source: `https://example.com/${id}`,
    price_evidence: evidence,
    estimate,
    ...(estimate ? { estimate_note: 'a tenth of a comparable list price' } : {}),
  };
}

/**
 * A share link whose plan can only recommend `offer`: the SD trial task, the offer added, and
 * the offers filtered to its provider. The page counts ages to its own today, whatever the link
 * says (this one says none).
 */
function linkTo(offer) {
  const task = JSON.parse(readFileSync(join(here, '../../examples/sd_trial.json'), 'utf8'));
  const scenario = {
    format_version: 1,
    task,
    settings: { currency: 'CNY', cny_per_usd: '7.2', seed: 1, trials: 200 },
    edits: { added: [offer] },
    filter: { text: 'AgeCheck' },
  };
  return `${BASE}#s=${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`;
}

/** The recommendation's price line and its caveat, if any. */
async function recommendation(page) {
  const price = page.locator('#recommended-price');
  const caveat = page.locator('#decision li[data-rule="price_caveat"]');
  return {
    offer: await page.locator('#recommended').getAttribute('data-offer'),
    asOf: await price.getAttribute('data-as-of'),
    ageDays: await price.getAttribute('data-age-days'),
    evidence: await price.getAttribute('data-evidence'),
    stale: await price.getAttribute('data-stale'),
    line: await price.innerText(),
    caveat: (await caveat.count()) ? await caveat.innerText() : null,
  };
}

for (const [locale, lang] of LANGS) {
  test(`the recommended price shows its age, with a caveat when it is old or an estimate (${locale})`, async (t) => {
    // Old and official: 2024-01-15 is more than 180 days before any day this suite runs on.
    const old = ownOffer({ id: 'age-old', asOf: '2024-01-15', evidence: 'official', estimate: false });
    let page = await open(t, linkTo(old), locale);
    const today = await browserToday(page);
    const age = ageDays('2024-01-15', today);
    assert.ok(age > STALE_DAYS);
    let r = await recommendation(page);
    assert.deepEqual([r.offer, r.asOf, r.ageDays, r.evidence, r.stale], ['age-old', '2024-01-15', String(age), 'official', 'true']);
    for (const part of ['2024-01-15', ageWords(age, lang), MARKS.official[lang]]) {
      assert.ok(r.line.includes(part), `the price line gives ${part}: ${r.line}`);
    }
    assert.ok(r.caveat, 'an old recommended price has a caveat');
    const said = lang === 'zh'
      ? ['2024-01-15', `距今 ${age} 天`, `超过 ${STALE_DAYS} 天`, '证据：官方']
      : ['2024-01-15', `${age} days old`, `over ${STALE_DAYS} days`, 'evidence: official'];
    for (const part of said) assert.ok(r.caveat.includes(part), `the caveat says ${part}: ${r.caveat}`);
    if (lang === 'zh') assert.doesNotMatch(r.caveat, /[A-Za-z]{2,}/, 'the caveat is worded in Chinese');

    // An estimate dated today: 0 days old, and still a caveat.
    const guess = ownOffer({ id: 'age-guess', asOf: iso(today), evidence: 'estimate', estimate: true });
    page = await open(t, linkTo(guess), locale);
    r = await recommendation(page);
    assert.deepEqual([r.offer, r.asOf, r.ageDays, r.evidence, r.stale], ['age-guess', iso(today), '0', 'estimate', 'false']);
    assert.ok(r.line.includes(ageWords(0, lang)) && r.line.includes(MARKS.estimate[lang]), r.line);
    assert.ok(r.caveat, 'an estimated recommended price has a caveat');
    assert.ok(r.caveat.includes(lang === 'zh' ? '估算值' : 'is an estimate'), r.caveat);

    // A fresh quote: its age and mark, and no caveat.
    const fresh = ownOffer({ id: 'age-fresh', asOf: iso(today), evidence: 'quote', estimate: false });
    page = await open(t, linkTo(fresh), locale);
    r = await recommendation(page);
    assert.deepEqual([r.offer, r.ageDays, r.evidence, r.stale], ['age-fresh', '0', 'quote', 'false']);
    assert.ok(r.line.includes(MARKS.quote[lang]), r.line);
    assert.equal(r.caveat, null, 'a fresh quote needs no caveat');
  });
}

test('switching the language rewords the ages, marks and caveat in place', async (t) => {
  const old = ownOffer({ id: 'age-old', asOf: '2024-01-15', evidence: 'official', estimate: false });
  const page = await open(t, linkTo(old), 'en-US');
  const age = ageDays('2024-01-15', await browserToday(page));
  const cell = page.locator('#offers-table tr[data-offer="age-old"] td.price-date');
  assert.equal(await cell.locator('.price-age').textContent(), ageWords(age, 'en'));
  assert.equal(await cell.locator('.badge.evidence').textContent(), 'official');
  assert.match(await page.locator('#decision li[data-rule="price_caveat"]').innerText(), /days old/);
  await page.click('#lang-toggle');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.equal(await cell.locator('.price-age').textContent(), ageWords(age, 'zh'));
  assert.equal(await cell.locator('.badge.evidence').textContent(), '官方');
  assert.match(await cell.locator('.badge.evidence').getAttribute('title'), /来源：https:\/\/example\.com\/age-old/);
  assert.match(await page.locator('#decision li[data-rule="price_caveat"]').innerText(), new RegExp(`距今 ${age} 天`));
  assert.match(await page.locator('#recommended-price').innerText(), /所用价格：2024-01-15 · \d+ 天前 · 官方/);
});
