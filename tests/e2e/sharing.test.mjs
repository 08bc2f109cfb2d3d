// Sharing and queues on the page (issue 32, item 6), in English and in Chinese: the neighbours'
// load typed in the task moves a time-sliced offer's slowdown and total and is shown as the
// user's value; a queue trace attached to an offer is shown as measured, with its starts and the
// queue's distribution, travels in the share link, and a bad one is refused naming its line; an
// offer of the user's own takes one too and loses it with the offer; a link whose queue trace
// names an offer the catalog lacks is refused naming it; a catalog offer's queue spread
// from its mean wait shows a median far below its mean; a probe profile's utilisation before any
// load of ours becomes the measured neighbours' load of the matching shared offers. Each figure
// is checked against the CLI's plan of the scenario the page saved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cliOptions, launch, openPage, openPanel, saved, settled } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');

/** What each language calls things the tests look for. */
const WORDS = {
  en: {
    loadDefault: 'assumed always busy',
    loadTask: 'your value, from the task',
    loadMeasured: 'measured by the probe: GPU utilisation before our load',
    measured: 'measured: ',
    starts: (n) => `${n} starts`,
    line: (n) => new RegExp(`line ${n}\\b`),
    fromMean: /the row's mean wait, spread like the public traces' pools \(Alibaba/,
    s: 's', min: 'min', h: 'h',
  },
  zh: {
    loadDefault: '假设一直满载',
    loadTask: '你在任务中填写的数值',
    loadMeasured: '由探针实测：我方负载前的 GPU 利用率',
    measured: '实测：',
    starts: (n) => `${n} 次启动`,
    line: (n) => new RegExp(`第 ${n} 行`),
    fromMean: /目录中该方案的平均等待时间.*阿里巴巴/,
    s: '秒', min: '分钟', h: '小时',
  },
};
const LANGS = [['en-US', 'en'], ['zh-CN', 'zh']];
const CJK = /[\u4e00-\u9fff]/;

/** A time-sliced offer of the default catalog (half an RTX 4090). */
const SLICED = 'suanjia-4090-ts2-payg';
/** A whole-card offer of the default catalog whose queue is its mean wait, spread. */
const QUEUED = 'autodl-4090-payg';
/** A memory-capped RTX 4090 container: what the HAMi fixture profile describes. */
const CAPPED = 'suanjia-4090-16g-container-payg';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A plain number with up to `digits` decimals and no trailing zeros, as the site writes it. */
const number = (x, digits) => {
  const s = x.toFixed(digits);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
};

/** A wait in hours as the site writes it: seconds, minutes or hours. */
function wait(lang, h) {
  const w = WORDS[lang];
  const s = h * 3600;
  const short = (x) => number(x, x < 10 ? 1 : 0);
  if (s < 59.5) return `${short(s)} ${w.s}`;
  if (s < 3570) return `${short(s / 60)} ${w.min}`;
  const n = h >= 100 ? Math.round(h).toLocaleString('en-US') : h.toFixed(1);
  return `${n} ${w.h}`;
}

/** Picks `id` in the sharing and queue panel (opening it) and waits for its facts. */
async function showDetails(page, id) {
  await openPanel(page, '#offer-details');
  await page.locator('#details-offer').waitFor();
  await page.selectOption('#details-offer', id);
  await page.locator(`#sharing-facts[data-offer="${id}"]`).waitFor();
}

/** The first two multipliers of a ranked row's slowdown line: median and P99. */
async function rankedSlowdown(page, id) {
  const text = await page.locator(`#ranking tr[data-offer="${id}"] .slowdown`).textContent();
  const m = text.match(/×([0-9.]+) · P99 ×([0-9.]+)/);
  assert.ok(m, `a slowdown is shown: ${text}`);
  return [Number(m[1]), Number(m[2])];
}

const total = (page, id) => page.locator(`#ranking tr[data-offer="${id}"] td.total`).textContent();

for (const [locale, lang] of LANGS) {
  const w = WORDS[lang];

  test(`sharing: a neighbours' load of 0.2 speeds a time-sliced offer up, shown as your value (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    // Only the time-sliced offer ranked, so that its row is on the page.
    await page.fill('#filter-text', SLICED);
    await page.waitForFunction((id) => {
      const rows = document.querySelectorAll('#ranking tbody tr');
      return rows.length === 1 && rows[0].dataset.offer === id;
    }, SLICED);
    await settled(page);
    const [median, p99] = await rankedSlowdown(page, SLICED);
    const before = await total(page, SLICED);
    await page.locator(`#ranking tr[data-offer="${SLICED}"] button.details-link`).click();
    const load = page.locator(`#sharing-facts[data-offer="${SLICED}"] dd[data-key="neighbour-load"]`);
    await load.waitFor();
    assert.equal(await load.getAttribute('data-source'), 'default');
    assert.ok((await load.textContent()).startsWith('100 % — '), await load.textContent());
    assert.ok((await load.textContent()).includes(w.loadDefault));
    assert.equal(await page.inputValue('#details-offer'), SLICED, 'the panel opens on the offer of the row');

    // Light neighbours: the share runs faster and costs less; the page says whose figure it is.
    await page.fill('#neighbour-load', '0.2');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.neighbour_load === 0.2);
    await settled(page);
    await page.locator(`#sharing-facts[data-offer="${SLICED}"] dd[data-key="neighbour-load"][data-source="task"]`).waitFor();
    const text = await load.textContent();
    assert.ok(text.startsWith('20 % — ') && text.includes(w.loadTask), text);
    const [median2, p99b] = await rankedSlowdown(page, SLICED);
    assert.ok(median2 < median && p99b < p99, `slowdown ×${median} / ×${p99} → ×${median2} / ×${p99b}`);
    const after = await total(page, SLICED);
    assert.notEqual(after, before, 'the total moved');
    assert.ok(parseFloat(after.replace(/,/g, '')) < parseFloat(before.replace(/,/g, '')), `${before} → ${after}`);
    // The CLI prices the saved scenario with the same load and the same slowdown.
    const cli = (await cliOptions(page)).get(SLICED);
    assert.deepEqual(cli.neighbour_load, { load: 0.2, source: 'task' });
    assert.equal(median2, Number(cli.slowdown.median.toFixed(2)));
    const slowdown = await page.locator(`#sharing-facts dd[data-key="slowdown"]`).textContent();
    assert.ok(slowdown.includes(`×${cli.slowdown.median.toFixed(2)}`) && slowdown.includes(`P99 ×${cli.slowdown.p99.toFixed(2)}`), slowdown);
    const latency = page.locator('#sharing-facts dd[data-key="latency-factor"]');
    assert.equal(await latency.getAttribute('data-source'), cli.latency_p99_factor.source);
    assert.ok((await latency.textContent()).startsWith(`×${cli.latency_p99_factor.p99.toFixed(2)}`), await latency.textContent());

    // Refused input says why beside the field and keeps the last good value.
    for (const bad of ['1.5', 'abc', '-0.1']) {
      await page.fill('#neighbour-load', bad);
      const error = page.locator('#neighbour-load-error');
      await error.filter({ hasText: /\S/ }).waitFor();
      if (lang === 'zh') assert.match(await error.textContent(), CJK);
      else assert.doesNotMatch(await error.textContent(), CJK);
    }
    assert.equal((await saved(page)).task.neighbour_load, 0.2, 'a refused value changes nothing');

    // Kept across a reload; emptied, the cautious default is back.
    await page.fill('#neighbour-load', '0.2');
    await page.reload();
    await page.locator('#recommended').waitFor();
    await settled(page);
    assert.equal(await page.inputValue('#neighbour-load'), '0.2');
    await page.fill('#neighbour-load', '');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.neighbour_load === undefined);
    await settled(page);
    assert.deepEqual(await rankedSlowdown(page, SLICED), [median, p99]);
  });

  test(`queue: a measured queue trace shows as measured, with its starts and its distribution; a bad one names its line (${lang})`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gpufare-queue-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const good = join(dir, 'pool-waits.csv');
    // 60 starts at once and 40 after half an hour.
    writeFileSync(good, `wait_s\n${[...Array(60).fill(0), ...Array(40).fill(1800)].join('\n')}\n`);
    const page = await openPage(browser, t, BASE, locale);
    await openPanel(page, '#queue-traces');
    await page.locator('#queue-traces-none').waitFor();
    await page.selectOption('#queue-trace-offer', QUEUED);
    await page.setInputFiles('#queue-trace-file', good);
    const row = page.locator(`#queue-traces-table tr[data-offer="${QUEUED}"]`);
    await row.waitFor();
    await page.waitForFunction((id) => (JSON.parse(localStorage.getItem('gpufare.scenario')).queue_traces ?? []).some((q) => q.offer_id === id && q.trace.starts === 100), QUEUED);
    await settled(page);
    // The scenario lists the trace by offer; the catalog's row itself is neither copied nor removed.
    const kept = await saved(page);
    assert.deepEqual([kept.queue_traces.length, kept.edits?.added ?? [], kept.edits?.removed ?? []], [1, [], []]);
    const facts = await row.locator('dl.queue-trace-stats').evaluate((dl) => Object.fromEntries([...dl.querySelectorAll('dd')].map((dd) => [dd.dataset.key, dd.textContent])));
    assert.deepEqual(facts, { file: 'pool-waits.csv', starts: '100', unstarted: '0', p0: '60.0 %', median: wait(lang, 0.5), sigma: '0.00' });
    assert.match(await page.locator('#queue-traces > summary').textContent(), /\(1\)$/);

    // The plan draws the offer's waits from the trace, as the CLI does with the saved scenario.
    const cli = (await cliOptions(page)).get(QUEUED);
    assert.equal(cli.queue_hours.source, 'trace');
    assert.equal(cli.queue_hours.p90, 0.5);
    await row.locator('button.details-link').click();
    const queue = page.locator(`#queue-facts[data-offer="${QUEUED}"][data-source="trace"]`);
    await queue.waitFor();
    const source = await queue.locator('dd[data-key="source"]').textContent();
    assert.ok(source.startsWith(w.measured) && source.includes('pool-waits.csv') && source.includes(w.starts(100)), source);
    const h = cli.queue_hours;
    assert.equal(await queue.locator('dd[data-key="quantiles"]').textContent(), [h.p50, h.p90, h.p99].map((x) => wait(lang, x)).join(' / '));
    assert.equal(await queue.locator('dd[data-key="mean"]').textContent(), wait(lang, h.mean));
    assert.equal(await page.locator('#queue-cdf path.cdf-line').count(), 1, 'the queue is drawn');
    assert.match(await page.locator('#queue-cdf .x-title').textContent(), lang === 'zh' ? /（分钟）$/ : /\(min\)$/);
    assert.match(await page.locator('#queue-cdf .y-title').textContent(), /%/);
    if (lang === 'en') await page.locator('#offer-details').screenshot({ path: join(process.env.GPUFARE_ARTIFACTS ?? tmpdir(), 'queue-en.png') });

    // A negative wait on line 3: refused by name and line, in the page's language; nothing changes.
    const before = JSON.stringify(await saved(page));
    await page.setInputFiles('#queue-trace-file', { name: 'bad-waits.csv', mimeType: 'text/csv', buffer: Buffer.from('wait_s\n10\n-5\n20\n') });
    const message = page.locator('#queue-trace-error').filter({ hasText: 'bad-waits.csv' });
    await message.waitFor();
    const said = await message.textContent();
    assert.match(said, w.line(3));
    if (lang === 'zh') assert.match(said, CJK);
    else assert.doesNotMatch(said, CJK);
    assert.equal(JSON.stringify(await saved(page)), before, 'a refused file changes nothing');
    // A file without a column the reader knows is named as such.
    await page.setInputFiles('#queue-trace-file', { name: 'nocols.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') });
    await page.locator('#queue-trace-error').filter({ hasText: 'nocols.csv' }).waitFor();
    assert.match(await page.locator('#queue-trace-error').textContent(), /wait_s/);

    // The page's share link carries the trace: opened afresh, the offer queues as measured.
    await page.click('#share');
    const link = await page.inputValue('#share-link');
    assert.ok(link.startsWith(`${BASE}#s=`), link);
    const other = await openPage(browser, t, link, locale);
    await openPanel(other, '#queue-traces');
    const carried = other.locator(`#queue-traces-table tr[data-offer="${QUEUED}"] dd[data-key="file"]`);
    await carried.waitFor();
    assert.equal(await carried.textContent(), 'pool-waits.csv');
    await showDetails(other, QUEUED);
    await other.locator(`#queue-facts[data-offer="${QUEUED}"][data-source="trace"]`).waitFor();

    // Removed, the catalog's row and its assumed queue are back.
    await page.click(`#queue-trace-remove-${QUEUED}`);
    await page.waitForFunction(() => {
      const s = JSON.parse(localStorage.getItem('gpufare.scenario'));
      return !(s.queue_traces ?? []).length && !(s.edits?.added ?? []).length && !(s.edits?.removed ?? []).length;
    });
    await settled(page);
    await page.locator('#queue-traces-none').waitFor();
    await page.locator(`#queue-facts[data-offer="${QUEUED}"][data-source="from_mean"]`).waitFor();
  });

  test(`queue: an offer of the user's own takes a queue trace through the same list, which goes with the offer; a link naming an offer the catalog lacks says so (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await openPanel(page, '.add-offer');
    await page.selectOption('#new-gpu', 'H100-SXM');
    await page.fill('#new-vram', '80');
    await page.fill('#new-price', '9');
    await page.click('#add-offer');
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).edits?.added ?? []).some((o) => o.id === 'custom-1'));
    await openPanel(page, '#queue-traces');
    await page.selectOption('#queue-trace-offer', 'custom-1');
    // Every start after an hour.
    await page.setInputFiles('#queue-trace-file', { name: 'own-pool.csv', mimeType: 'text/csv', buffer: Buffer.from('wait_s\n3600\n3600\n3600\n') });
    await page.locator('#queue-traces-table tr[data-offer="custom-1"]').waitFor();
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).queue_traces ?? []).some((q) => q.offer_id === 'custom-1'));
    await settled(page);
    const mine = (await saved(page)).edits.added.find((o) => o.id === 'custom-1');
    assert.equal(mine.queue_trace, undefined, 'the offer itself is untouched');
    const cli = (await cliOptions(page)).get('custom-1');
    assert.equal(cli.queue_hours.source, 'trace');
    assert.equal(cli.queue_hours.p50, 1);

    // The offer removed, its trace goes too.
    await page.click('#offers-table tr[data-offer="custom-1"] button.link');
    await page.waitForFunction(() => {
      const s = JSON.parse(localStorage.getItem('gpufare.scenario'));
      return !(s.queue_traces ?? []).length && !(s.edits?.added ?? []).length;
    });
    await page.locator('#queue-traces-none').waitFor();
    await settled(page);

    // A link whose queue trace names an offer the catalog lacks is refused, the offer named.
    const scenario = await saved(page);
    scenario.queue_traces = [{
      offer_id: 'no-such-offer',
      trace: { name: 'waits.csv', starts: 3, waits_hours: Array(64).fill(1), fitted: { p0: 0, median_hours: 1, sigma: 0 } },
    }];
    const bad = await openPage(browser, t, `${BASE}#s=${Buffer.from(JSON.stringify(scenario)).toString('base64url')}`, locale);
    const said = await bad.locator('#link-error').textContent();
    assert.ok(said.includes('no-such-offer'), said);
    if (lang === 'zh') assert.match(said, CJK);
    else assert.doesNotMatch(said, CJK);
  });

  test(`queue: a catalog offer's queue from its mean wait starts at once or takes a long while (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await showDetails(page, QUEUED);
    const queue = page.locator(`#queue-facts[data-offer="${QUEUED}"]`);
    await queue.waitFor();
    assert.equal(await queue.getAttribute('data-source'), 'from_mean');
    const p50 = Number(await queue.getAttribute('data-p50-hours'));
    const mean = Number(await queue.getAttribute('data-mean-hours'));
    assert.ok(p50 > 0 && p50 * 10 < mean, `P50 ${p50} h against a mean of ${mean} h`);
    const h = (await cliOptions(page)).get(QUEUED).queue_hours;
    assert.equal(h.source, 'from_mean');
    assert.equal(p50, h.p50);
    assert.equal(await queue.locator('dd[data-key="quantiles"]').textContent(), [h.p50, h.p90, h.p99].map((x) => wait(lang, x)).join(' / '));
    assert.equal(await queue.locator('dd[data-key="mean"]').textContent(), wait(lang, h.mean));
    assert.match(await queue.locator('dd[data-key="source"]').textContent(), w.fromMean);
    const shape = await queue.locator('dd[data-key="shape"]').textContent();
    assert.ok(shape.startsWith(`${(h.p0 * 100).toFixed(1)} %`) && shape.includes(wait(lang, h.median_hours)), shape);
    assert.equal(await page.locator('#queue-cdf path.cdf-line').count(), 1);
    // A dedicated card shares nothing with neighbours: no load applies.
    assert.equal(await page.locator('#sharing-facts dd[data-key="neighbour-load"]').getAttribute('data-source'), null);
    // A MIG slice names its profile.
    const mig = [...(await cliOptions(page)).values()].find((o) => o.tenancy === 'mig');
    await page.selectOption('#details-offer', mig.offer_id);
    await page.locator(`#sharing-facts[data-offer="${mig.offer_id}"]`).waitFor();
    assert.match(await page.locator('#sharing-facts dd[data-key="mig-profile"]').textContent(), /^\dg\.\d+gb/);
  });

  test(`sharing: a probe profile's utilisation before our load is the measured neighbours' load (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await page.setInputFiles('#profile-file', join(here, '../profiles/hami-4090-neighbours.json'));
    const tick = page.locator('#profile-compare tr[data-file="hami-4090-neighbours.json"] input.use-measured');
    await tick.waitFor();
    await tick.check();
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).measured ?? []).some((m) => m.neighbour_load !== undefined));
    await settled(page);
    const cli = (await cliOptions(page)).get(CAPPED);
    assert.equal(cli.neighbour_load.source, 'measured');
    // The profile's row says what it gives the plan.
    const gives = await page.locator('#profile-compare tr[data-file="hami-4090-neighbours.json"] .applies-to').textContent();
    assert.ok(gives.includes(`${number(cli.neighbour_load.load * 100, 1)} %`), gives);
    await showDetails(page, CAPPED);
    const load = page.locator(`#sharing-facts[data-offer="${CAPPED}"] dd[data-key="neighbour-load"]`);
    assert.equal(await load.getAttribute('data-source'), 'measured');
    const text = await load.textContent();
    assert.ok(text.startsWith(`${number(cli.neighbour_load.load * 100, 1)} % — `) && text.includes(w.loadMeasured), text);
    // A typed load does not replace a measured one.
    await page.fill('#neighbour-load', '0.1');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.neighbour_load === 0.1);
    await settled(page);
    assert.equal(await load.getAttribute('data-source'), 'measured');
  });
}
