// Where the user is and what they can buy (issue 31), in English and in Chinese: a task limited
// to mainland China and located in Shanghai ranks no overseas offer, says why each overseas offer
// is out in the page's language, and shows round trips counted from Shanghai — the very figures
// the CLI gives for the same scenario; the same task located in Frankfurt shows other round
// trips; the choice survives a reload and a new preset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { execFileSync, execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { cliOptions, launch, openPage, settled } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');
const BIN = process.env.GPUFARE_BIN;
assert.ok(BIN, 'GPUFARE_BIN must name the gpufare binary built in this run');

/** What each language calls things the test looks for. */
const WORDS = {
  en: {
    roundTrip: 'round trip',
    ms: 'ms',
    outside: 'sold outside mainland China; the task buys only in mainland China',
    summary: 'Your location: Shanghai · mainland China only',
    distance: 'estimated from distance',
    published: 'published measurement',
    measuredUsed: 'Round trips measured from your location in use: Shanghai',
  },
  zh: {
    roundTrip: '网络往返',
    ms: '毫秒',
    outside: '在中国大陆以外销售；该任务只在中国大陆购买',
    summary: '您的位置：上海 · 仅中国大陆',
    distance: '按距离估算',
    published: '公开测量',
    measuredUsed: '正在使用从您的位置实测的网络往返：上海',
  },
};
const LANGS = [['en-US', 'en'], ['zh-CN', 'zh']];

/** Offer ids of the default catalog outside mainland China, as the CLI classes them. */
const overseas = new Set(
  JSON.parse(execFileSync(BIN, ['plan', '--task', join(here, '../../examples/qlora_7b.json'), '--format', 'json', '--trials', '50'], { encoding: 'utf8' }))
    .options.filter((o) => o.region_class === 'overseas').map((o) => o.offer_id),
);
assert.ok(overseas.has('aws-use1-g5xl-payg'), 'the catalog has overseas offers');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Ranked rows: offer id and the round-trip figure the row shows (ms), if any. */
const ranked = (page, w) => page.$$eval('#ranking tbody tr', (trs, [word, unit]) => trs.map((tr) => {
  const m = tr.textContent.match(new RegExp(`${word} ([0-9.]+) ${unit}`));
  return [tr.dataset.offer, m ? Number(m[1]) : null];
}), [w.roundTrip, w.ms]);

/** Waits until every ranked row shows a round trip and the plan is the current scenario's. */
async function roundTripsShown(page, word) {
  await page.waitForFunction((w) => {
    const rows = [...document.querySelectorAll('#ranking tbody tr')];
    return rows.length > 0 && rows.every((tr) => tr.textContent.includes(w));
  }, word);
  await settled(page);
}

for (const [locale, lang] of LANGS) {
  const w = WORDS[lang];

  test(`${lang}: mainland China only, from Shanghai, ranks no overseas offer and counts round trips from Shanghai`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await page.selectOption('#location', 'shanghai');
    await page.selectOption('#markets', 'mainland_china');
    await page.waitForFunction((s) => document.querySelector('#reach-summary')?.textContent === s, w.summary);
    await roundTripsShown(page, w.roundTrip);

    const rows = await ranked(page, w);
    assert.ok(rows.length >= 3, 'offers are ranked');
    for (const [id] of rows) assert.ok(!overseas.has(id), `${id} is overseas yet ranked`);
    const cli = await cliOptions(page);
    for (const [id, ms] of rows) {
      assert.equal(ms, cli.get(id).rtt_ms, `${id}: the page's round trip differs from the CLI's`);
      assert.ok(ms < 60, `${id}: ${ms} ms from Shanghai to a mainland offer`);
    }
    assert.match(await page.locator('#ranking').textContent(), new RegExp(w.distance));

    // Each overseas offer is out, and the page says why in its language.
    await page.locator('#infeasible summary').click();
    const aws = page.locator('#infeasible li[data-offer="aws-use1-g5xl-payg"]');
    assert.match(await aws.textContent(), new RegExp(w.outside));

    // The same task from Frankfurt: other round trips, the CLI's again.
    await page.selectOption('#location', 'frankfurt');
    await page.waitForFunction(([id, word, unit]) => {
      const m = document.querySelector(`#ranking tr[data-offer="${id}"]`)?.textContent.match(new RegExp(`${word} ([0-9.]+) ${unit}`));
      return m && Number(m[1]) > 100;
    }, [rows[0][0], w.roundTrip, w.ms]);
    await settled(page);
    const far = await ranked(page, w);
    const cliFar = await cliOptions(page);
    for (const [id, ms] of far) {
      assert.equal(ms, cliFar.get(id).rtt_ms, `${id}: the page's round trip from Frankfurt differs from the CLI's`);
      assert.ok(ms > 100, `${id}: ${ms} ms from Frankfurt to mainland China`);
    }
    const before = new Map(rows);
    assert.ok(far.some(([id, ms]) => before.has(id) && before.get(id) !== ms), 'the round trips moved');

    // Remembered: a reload and a new preset keep the location and the markets.
    await page.reload();
    await page.locator('#recommended').waitFor();
    assert.equal(await page.inputValue('#location'), 'frankfurt');
    assert.equal(await page.inputValue('#markets'), 'mainland_china');
    await page.selectOption('#preset', 'sd_batch');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === 'sd_batch');
    assert.equal(await page.inputValue('#location'), 'frankfurt');
    const saved = JSON.parse(await page.evaluate(() => localStorage.getItem('gpufare.scenario')));
    assert.equal(saved.task.location, 'frankfurt');
    assert.equal(saved.task.markets, 'mainland_china');
  });

  test(`${lang}: personal data from Shanghai is flagged on overseas offers, and a provider can be left out`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await page.selectOption('#location', 'shanghai');
    await page.check('#personal-data');
    await page.fill('#providers-excluded', 'AutoDL，优云智算');
    await page.locator('#providers-excluded').dispatchEvent('change');
    await page.waitForFunction(() => {
      const task = JSON.parse(localStorage.getItem('gpufare.scenario')).task;
      return task.personal_data === true && (task.providers_excluded ?? []).length === 2;
    });
    await roundTripsShown(page, w.roundTrip);
    const cli = await cliOptions(page);
    const autodl = [...cli.values()].filter((o) => o.provider === 'AutoDL');
    assert.ok(autodl.length > 0 && autodl.every((o) => !o.feasible && o.reasons.some((r) => r.rule === 'provider_excluded')));
    const leaving = [...cli.values()].filter((o) => o.flags?.some((f) => f.rule === 'data_leaves_jurisdiction'));
    assert.ok(leaving.length > 0 && leaving.every((o) => overseas.has(o.offer_id)), 'only overseas offers are flagged');
    // A flagged offer that is ranked carries the warning in the page's language.
    const rows = await ranked(page, w);
    const flagged = rows.find(([id]) => leaving.some((o) => o.offer_id === id));
    if (flagged) {
      const badge = page.locator(`#ranking tr[data-offer="${flagged[0]}"] .badge.warn`);
      assert.match(await badge.getAttribute('title'), lang === 'en' ? /PIPL art\. 38/ : /个人信息保护法》第三十八至四十条.*数据出境/);
    }
    for (const [id] of rows) assert.ok(!id.startsWith('autodl-') && !id.startsWith('youyun-'), `${id} is excluded`);
  });
}

/**
 * A profile written by `gpufare probe` timing a real loopback listener labelled cn-shanghai, in a
 * folder removed when test `t` ends.
 */
async function deskProfile(t) {
  const server = createServer((socket) => socket.end());
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'gpufare-desk-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'desk.json');
  try {
    await promisify(execFile)(BIN, ['probe', '--no-gpu', '--duration', '0', '--quiet', '--rtt',
      `cn-shanghai=127.0.0.1:${server.address().port}`, '--rtt-tries', '3', '-o', path]);
  } finally {
    server.close();
  }
  return path;
}

for (const [locale, lang] of LANGS) {
  test(`${lang}: round trips a probe measured where the user is replace the table's, once ticked`, async (t) => {
    const profile = await deskProfile(t);
    const page = await openPage(browser, t, BASE, locale);
    await page.selectOption('#location', 'frankfurt');
    await roundTripsShown(page, WORDS[lang].roundTrip);
    await page.setInputFiles('#profile-file', profile);
    const tick = page.locator('#profile-compare .use-rtt');
    await tick.waitFor();
    await tick.check();
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).task.measured_rtt ?? []).length === 1);
    await settled(page);
    assert.match(await page.locator('#measured-rtt').textContent(), new RegExp(WORDS[lang].measuredUsed));
    const cli = await cliOptions(page);
    assert.equal(cli.get('aliyun-sh-a10-payg').rtt_basis, 'measured');
    assert.ok(cli.get('aliyun-sh-a10-payg').rtt_ms < 50, 'a loopback round trip');
    assert.equal(cli.get('aliyun-bj-a10-yearly').rtt_basis, 'distance');
    // Unticked, the table's figure is back.
    await tick.uncheck();
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).task.measured_rtt ?? []).length === 0);
  });
}
