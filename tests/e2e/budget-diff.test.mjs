// What changed (issue 31): the site opens an earlier budget (its JSON export) and shows what moved
// against the plan on the page — the recommendation and its total before and now, the reasons,
// and every offer whose rank, price or total moved — with the same figures as
// `gpufare plan --diff OLD.json --format json` for the same scenario, in English and in
// Simplified Chinese. The earlier budget is the CLI's, for the page's own scenario priced when its
// recommended offer cost ten times as much. A file that is not a budget is refused by name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { launch, openPage } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');
const ARTIFACTS = process.env.GPUFARE_ARTIFACTS ?? tmpdir();
const BIN = process.env.GPUFARE_BIN;
assert.ok(BIN, 'GPUFARE_BIN must name the gpufare binary built in this run');
const DEFAULT_CATALOG = join(here, '../../core/data/catalog.csv');

/** What each language calls things. */
const WORDS = {
  en: {
    currency: { CNY: 'CNY', USD: 'USD' },
    perGpuHour: '/GPU-h',
    choice: {
      shared: 'Shared compute',
      dedicated: 'Dedicated GPU',
      dedicated_or_private: 'Dedicated or private deployment',
      hybrid: 'Hybrid: shared first, then dedicated',
      no_feasible_offer: 'No offer can run this task',
    },
    changed: 'changed',
    notBudget: 'not a gpufare budget',
    line: 'line 1',
  },
  zh: {
    currency: { CNY: '元', USD: '美元' },
    perGpuHour: '/GPU 小时',
    choice: {
      shared: '共享算力',
      dedicated: '独享显卡',
      dedicated_or_private: '独享或私有化部署',
      hybrid: '混合：先共享，后独享',
      no_feasible_offer: '没有方案能运行该任务',
    },
    changed: '已改变',
    notBudget: '不是 gpufare 预算文件',
    line: '第 1 行',
  },
};
const LANGS = [['en-US', 'en'], ['zh-CN', 'zh']];
const CJK = /[\u4e00-\u9fff]/;

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Runs the CLI and returns its standard output. */
const gpufare = (args) => execFileSync(BIN, args, { encoding: 'utf8' });

/** Digits with thousands separators, as core's `group_thousands` writes them. */
function group(plain) {
  const sign = plain.startsWith('-') ? '-' : '';
  const [int, frac] = plain.replace(/^-/, '').split('.');
  return sign + int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac === undefined ? '' : `.${frac}`);
}

/** Money as the page shows it: two decimals, grouped, and the currency's name. */
const money = (w, x, c) => `${group(x.toFixed(2))} ${w.currency[c]}`;
const signed = (w, x, c) => `${x >= 0 ? '+' : ''}${money(w, x, c)}`;
/** A price per GPU-hour: up to four decimals, at least two. */
function price(w, x, c) {
  let s = x.toFixed(4).replace(/0+$/, '');
  if ((s.split('.')[1] ?? '').length < 2) s = x.toFixed(2);
  return `${group(s)} ${w.currency[c]}${w.perGpuHour}`;
}

/** Saves what clicking `selector` downloads and returns its path and text. */
async function download(page, selector, name) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const path = join(ARTIFACTS, name);
  await d.saveAs(path);
  return { path, text: readFileSync(path, 'utf8') };
}

/** The page's today, `YYYY-MM-DD` in the browser's time zone (the day it counts prices' ages to). */
const pageToday = (page) => page.evaluate(() => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
});

/**
 * The page's scenario exported as a budget, an earlier budget of the same scenario made by the CLI
 * with the recommended offer's price ten times as high, and the CLI's diff of the two.
 */
async function earlierBudget(page, lang) {
  const site = await download(page, '#export-json', `diff-site-${lang}.json`);
  const current = JSON.parse(site.text);
  assert.ok(current.scenario, 'the budget carries its scenario');
  const today = await pageToday(page);
  const id = current.decision.recommended_offer;
  assert.ok(id, 'the default scenario recommends an offer');
  const catalogPath = join(ARTIFACTS, `diff-catalog-${lang}.json`);
  gpufare(['catalog', 'convert', DEFAULT_CATALOG, '--to', 'json', '-o', catalogPath]);
  const catalog = JSON.parse(readFileSync(catalogPath, 'utf8'));
  const offer = catalog.offers.find((o) => o.id === id);
  assert.ok(offer, `${id} is in the default catalog`);
  offer.price = (Number(offer.price) * 10).toFixed(4);
  writeFileSync(catalogPath, JSON.stringify(catalog));
  const old = join(ARTIFACTS, `diff-old-${lang}.json`);
  gpufare(['plan', '--scenario', site.path, '--catalog', catalogPath, '--today', today, '--format', 'json', '-o', old]);
  const expected = JSON.parse(
    gpufare(['plan', '--scenario', site.path, '--today', today, '--diff', old, '--format', 'json']),
  );
  return { id, old, expected };
}

/** The text and raw number of a `before`/`after`/`change` part of `row`, or null when absent. */
async function part(row, name) {
  const el = row.locator(`[data-testid="${name}"]`).first();
  const text = (await el.textContent()).trim();
  const inner = el.locator('[data-value]');
  const value = (await el.getAttribute('data-value')) ?? ((await inner.count()) ? await inner.first().getAttribute('data-value') : null);
  return { text, value: value === null ? null : Number(value) };
}

for (const [locale, lang] of LANGS) {
  const w = WORDS[lang];

  test(`budget-diff: an earlier budget shows what moved, with the CLI's figures (${locale})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale, { acceptDownloads: true });
    const { id, old, expected: d } = await earlierBudget(page, lang);
    const cb = d.currency_before ?? d.currency;
    const ca = d.currency;
    assert.equal(ca, 'CNY', 'the default scenario prices in yuan');
    // What the scenario must show for the test to mean anything: the recommendation moved off
    // the offer whose price went up, and that offer's price and rank moved.
    assert.notEqual(d.recommended_before, d.recommended_after);
    const moved = d.changes.find((c) => c.offer_id === id);
    assert.ok(moved && moved.price_before > moved.price_after && moved.rank_before > moved.rank_after, JSON.stringify(moved));

    await page.click('#budget-diff > summary');
    await page.setInputFiles('#budget-diff-file', old);
    const result = page.locator('#budget-diff-result');
    await result.waitFor();
    assert.equal(await result.getAttribute('data-file'), `diff-old-${lang}.json`);

    // The recommendation before and now.
    const rec = page.locator('#budget-diff-recommendation');
    assert.equal(await rec.getAttribute('data-changed'), 'true');
    for (const [side, choice, offer] of [['before', d.choice_before, d.recommended_before], ['after', d.choice_after, d.recommended_after]]) {
      const cell = rec.locator(`[data-testid="${side}"]`);
      assert.equal(await cell.getAttribute('data-choice'), choice);
      assert.equal(await cell.getAttribute('data-offer'), offer);
      assert.equal((await cell.textContent()).trim(), `${w.choice[choice]} · ${offer}`);
    }
    assert.equal((await rec.locator('td').last().textContent()).trim(), w.changed);

    // Its total before and now, with the currency, and the change.
    const total = page.locator('#budget-diff-total');
    const tb = await part(total, 'before');
    const ta = await part(total, 'after');
    const tc = await part(total, 'change');
    assert.deepEqual(tb, { text: money(w, d.recommended_total_before, cb), value: d.recommended_total_before });
    assert.deepEqual(ta, { text: money(w, d.recommended_total_after, ca), value: d.recommended_total_after });
    assert.deepEqual(tc, { text: signed(w, d.recommended_total_change, ca), value: d.recommended_total_change });

    // The reasons before and now: the same rules; English as the budgets word them, Chinese worded
    // from the rule ids and parameters.
    for (const [side, list] of [['before', d.reasons_before], ['after', d.reasons_after]]) {
      const items = page.locator(`#budget-diff-reasons-${side} li`);
      assert.deepEqual(await items.evaluateAll((li) => li.map((x) => x.dataset.rule)), list.map((r) => r.rule));
      const texts = (await items.allTextContents()).map((s) => s.trim());
      if (lang === 'en') {
        assert.deepEqual(texts, list.map((r) => r.text));
      } else {
        texts.forEach((s, i) => {
          assert.ok(CJK.test(s), `a reason in Chinese: ${s}`);
          assert.notEqual(s, list[i].text);
        });
      }
    }

    // Every offer that moved, in the CLI's order, with its rank, price and total before and now.
    const rows = page.locator('#budget-diff-changes tbody tr');
    assert.deepEqual(await rows.evaluateAll((tr) => tr.map((x) => x.dataset.offer)), d.changes.map((c) => c.offer_id));
    for (const [i, c] of d.changes.entries()) {
      const row = rows.nth(i);
      assert.equal(await row.getAttribute('data-change'), c.change);
      const cell = (name) => row.locator(`[data-testid="${name}"]`);
      const rank = (x) => (x === undefined ? { text: '—', value: null } : { text: String(x), value: x });
      assert.deepEqual(await part(cell('rank'), 'before'), rank(c.rank_before), `${c.offer_id} rank before`);
      assert.deepEqual(await part(cell('rank'), 'after'), rank(c.rank_after), `${c.offer_id} rank after`);
      const shown = (x, f, cur) => (x === undefined ? { text: '—', value: null } : { text: f(w, x, cur), value: x });
      assert.deepEqual(await part(cell('price'), 'before'), shown(c.price_before, price, cb), `${c.offer_id} price before`);
      assert.deepEqual(await part(cell('price'), 'after'), shown(c.price_after, price, ca), `${c.offer_id} price after`);
      assert.deepEqual(await part(cell('total'), 'before'), shown(c.total_before, money, cb), `${c.offer_id} total before`);
      assert.deepEqual(await part(cell('total'), 'after'), shown(c.total_after, money, ca), `${c.offer_id} total after`);
      const change = (await cell('change').textContent()).trim();
      assert.equal(change, c.total_change === undefined ? '' : signed(w, c.total_change, ca), `${c.offer_id} change`);
    }
    // The offer whose price went up: its price and rank, as the CLI says.
    const row = page.locator(`#budget-diff-changes tr[data-offer="${id}"]`);
    const p = await part(row.locator('[data-testid="price"]'), 'before');
    assert.equal(p.value, moved.price_before);
    assert.equal(p.text, price(w, moved.price_before, cb));
    assert.equal((await part(row.locator('[data-testid="rank"]'), 'after')).text, String(moved.rank_after));
  });

  test(`budget-diff: a file that is not a budget is refused by its name (${locale})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale, { acceptDownloads: true });
    await page.click('#budget-diff > summary');
    const error = page.locator('#budget-diff-error');
    // Broken JSON: the file, the reason and the place.
    await page.setInputFiles('#budget-diff-file', { name: 'broken-budget.json', mimeType: 'application/json', buffer: Buffer.from('{"format_version": 1, "kind": ') });
    await error.waitFor();
    const broken = (await error.textContent()).trim();
    assert.ok(broken.startsWith('broken-budget.json: '), broken);
    assert.ok(broken.includes(w.notBudget) && broken.includes(w.line), broken);
    assert.equal(await page.locator('#budget-diff-result').count(), 0);
    // A budget with a figure no plan writes: the field is named.
    const site = await download(page, '#export-json', `diff-bad-${lang}.json`);
    const budget = JSON.parse(site.text);
    budget.options[1].total_expected = -5;
    await page.setInputFiles('#budget-diff-file', { name: 'negative-total.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(budget)) });
    await page.locator('#budget-diff-error', { hasText: 'negative-total.json' }).waitFor();
    const negative = (await error.textContent()).trim();
    assert.ok(negative.startsWith('negative-total.json: '), negative);
    assert.ok(negative.includes(w.notBudget) && negative.includes('options[1].total_expected'), negative);
    if (lang === 'zh') assert.ok(CJK.test(negative.replace(w.notBudget, '')), negative);
  });
}
