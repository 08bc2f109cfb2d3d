// Serving priced from traffic on the page (issue 33, item 5), in English and in Chinese: with the
// `inference_api` preset the deployments panel shows the deployment the CLI chooses for the same
// task (kind, offer, cost per month) and the deployments it priced; office hours at a mean of 4
// requests a second change the kind chosen, as they do in the CLI; the weights' precision and the
// GPUs per replica go into the scenario and price as the CLI prices them; a curve drawn with the
// pointer does too, once the pointer is released; a pasted curve is read by
// core's traffic CSV reader, a bad line is refused naming the line, and a good one re-prices the
// plan; nothing English is left on the Chinese page; the printout keeps the deployment chosen and
// why, leaves the editor, the table and the chart off, and stays one A4 page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { cliPlanOf, launch, openPage, saved, settled } from './browser.mjs';
import { catalogData, englishOnPage } from './language.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');
const BIN = process.env.GPUFARE_BIN;
assert.ok(BIN, 'GPUFARE_BIN must name the gpufare binary built in this run');
const ARTIFACTS = join(here, '../../target/e2e');

/** What each language calls things the tests look for. */
const WORDS = {
  en: { line: (n) => new RegExp(`line ${n}\\b`), count: /25 values/ },
  zh: { line: (n) => new RegExp(`第 ${n} 行`), count: /共 25 个数值/ },
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

/** Runs the CLI and reads its JSON. */
const cli = (args) => JSON.parse(execFileSync(BIN, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));

/** The CLI's service plan of the scenario the page holds now. */
async function cliService(page) {
  const plan = await cliPlanOf(page);
  assert.ok(plan.service, 'the CLI prices the service');
  return plan.service;
}

/** Opens the site in `locale` with the `inference_api` preset and waits for the panel's choice. */
async function openService(t, locale) {
  const page = await openPage(browser, t, BASE, locale);
  await page.selectOption('#preset', 'inference_api');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === 'inference_api');
  await settled(page);
  await page.locator('#serving-choice').waitFor();
  await page.locator('#traffic-hours').waitFor();
  return page;
}

/** The choice the panel shows. */
const shownChoice = (page) => page.locator('#serving-choice').evaluate((e) => ({
  kind: e.dataset.kind, offer: e.dataset.offer, cost: Number(e.dataset.cost), currency: e.dataset.currency,
}));

/** Waits until the panel shows `choice` (core's `service.choice`) and checks its cost. */
async function showsChoice(page, choice, where) {
  await page.waitForFunction(({ kind, offer }) => {
    const e = document.querySelector('#serving-choice');
    return e?.dataset.kind === kind && e?.dataset.offer === offer;
  }, { kind: choice.kind, offer: choice.offer_id }, { timeout: 15000 }).catch(() => {});
  const shown = await shownChoice(page);
  assert.equal(shown.kind, choice.kind, `${where}: the kind chosen`);
  assert.equal(shown.offer, choice.offer_id, `${where}: the offer chosen`);
  assert.equal(shown.currency, choice.cost_per_month.currency, `${where}: the currency`);
  assert.ok(Math.abs(shown.cost - Number(choice.cost_per_month.amount)) < 0.006,
    `${where}: cost per month ${shown.cost} on the page, ${choice.cost_per_month.amount} in the CLI`);
  return shown;
}

/** A curve of 24 lines as `hour,rps`, or one rate per line. */
const curve = (rates, withHours) => rates.map((r, h) => (withHours ? `${h},${r}` : String(r))).join('\n');

// ---- The Chinese page's English check, as tests/e2e/site.test.mjs does it. ----


for (const [locale, lang] of LANGS) {
  const w = WORDS[lang];

  test(`serving: the inference API's deployment chosen is the CLI's, with its deployments and replicas (${lang})`, async (t) => {
    const page = await openService(t, locale);
    const scenario = await saved(page);
    assert.equal(scenario.task.serving.model, 'llama-3.1-8b');
    assert.equal(scenario.task.serving.traffic.name, 'steady_api');
    // The CLI on the scenario the page saved, and on the example task counted to the page's day.
    const service = await cliService(page);
    await showsChoice(page, service.choice, 'the saved scenario');
    const today = scenario.settings.today;
    assert.match(today, /^\d{4}-\d{2}-\d{2}$/, 'the page dates its scenario');
    const example = cli(['plan', '--task', join(here, '../../examples/inference_api.json'), '--format', 'json', '--today', today]).service;
    await showsChoice(page, example.choice, 'examples/inference_api.json');

    // The reason is worded in the page's language and names the offer.
    const reason = await page.locator('#serving-reason').textContent();
    assert.ok(reason.includes(service.choice.offer_id), reason);
    if (lang === 'zh') assert.match(reason, CJK);
    else assert.doesNotMatch(reason, CJK);

    // The table: the first offer's deployments as the CLI priced them, the chosen one marked.
    const first = service.offers[0];
    for (const d of first.deployments) {
      const row = page.locator(`#serving-table tr[data-kind="${d.kind}"][data-offer="${d.offer_id}"]`).first();
      assert.equal(await row.count(), 1, `${d.kind} on ${d.offer_id} is listed`);
      const cost = Number(await row.getAttribute('data-cost'));
      assert.ok(Math.abs(cost - Number(d.cost_per_month.amount)) < 0.006, `${d.kind}: ${cost} vs ${d.cost_per_month.amount}`);
    }
    const chosen = page.locator('#serving-table tr.chosen');
    assert.equal(await chosen.getAttribute('data-kind'), service.choice.kind);
    assert.equal(await chosen.getAttribute('data-offer'), service.choice.offer_id);
    const cells = await chosen.locator('td').allTextContents();
    assert.match(cells[2], lang === 'zh' ? /元$/ : /CNY$/, `cost with its currency: ${cells[2]}`);

    // The chart: one line per deployment of the chosen offer's group.
    const group = service.offers.find((o) => o.deployments.some((d) => d.kind === service.choice.kind && d.offer_id === service.choice.offer_id));
    const lines = await page.locator('#serving-chart path.replica-line').evaluateAll((ps) => ps.map((p) => p.dataset.kind));
    assert.deepEqual(lines, group.deployments.map((d) => d.kind));
    if (lang === 'zh') assert.match(await page.locator('#serving-chart title').textContent(), CJK);
  });

  test(`serving: office hours at a mean of 4 requests a second change the kind chosen, as in the CLI (${lang})`, async (t) => {
    const page = await openService(t, locale);
    const before = await shownChoice(page);
    await page.selectOption('#traffic-preset', 'office_hours');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.traffic.name === 'office_hours');
    await page.fill('#traffic-mean', '4');
    await page.waitForFunction(() => {
      const r = JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.traffic.rps_by_hour;
      return Math.abs(r.reduce((a, b) => a + b, 0) / r.length - 4) < 1e-9;
    });
    await settled(page);
    const service = await cliService(page);
    const now = await showsChoice(page, service.choice, 'office hours at 4');
    assert.notEqual(now.kind, before.kind, `the kind chosen moved from ${before.kind}`);
    // The hourly box shows the new curve: 24 lines, peaking at 2.8 times the mean.
    const rates = (await page.inputValue('#traffic-hours')).split('\n').map(Number);
    assert.equal(rates.length, 24);
    assert.ok(Math.abs(Math.max(...rates) / 4 - 2.78) < 0.05, `peak ${Math.max(...rates)}`);
    assert.ok(Number(await page.locator('#serving-chart path.replica-line').count()) >= 2);
    // How long a new replica takes on the chosen offers, as core worked it out, and that its load
    // rate is the default (no profile measured this machine).
    const group = service.offers.find((o) => o.deployments.some((d) => d.kind === service.choice.kind && d.offer_id === service.choice.offer_id));
    const scaled = group.deployments.find((d) => d.scale_up_seconds != null);
    const line = page.locator('#serving-scale-up');
    assert.ok(Math.abs(Number(await line.getAttribute('data-seconds')) - scaled.scale_up_seconds) < 0.001,
      `scale-up ${await line.getAttribute('data-seconds')} s on the page, ${scaled.scale_up_seconds} s in the CLI`);
    assert.ok(Math.abs(Number(await line.getAttribute('data-load')) - scaled.model_load.seconds) < 0.001);
    assert.equal(await line.getAttribute('data-measured'), 'false');
    assert.equal(scaled.model_load.measured, false);
    assert.match(await line.textContent(), lang === 'zh' ? /默认速率/ : /the default rate/);
  });

  test(`serving: the weights' precision and the GPUs per replica go into the scenario and price as in the CLI (${lang})`, async (t) => {
    const page = await openService(t, locale);
    assert.equal(await page.inputValue('#serving-weights'), 'bf16', 'BF16 when the task says nothing');
    assert.equal(await page.inputValue('#serving-gpus'), '', "empty: the task's GPUs");
    const serving = async () => (await saved(page)).task.serving;
    const before = await shownChoice(page);

    await page.selectOption('#serving-weights', 'fp8');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.weights === 'fp8');
    await settled(page);
    let service = await cliService(page);
    await showsChoice(page, service.choice, 'FP8 weights');
    // FP8 halves the weights a replica reads per token: more requests per replica than in BF16.
    const bf16 = cli(['plan', '--task', join(here, '../../examples/inference_api.json'), '--format', 'json']).service;
    const capacity = (sv, id) => sv.offers.find((o) => o.offer_id === id)?.deployments[0]?.capacity.requests_per_second;
    const id = service.offers[0].offer_id;
    assert.ok(capacity(service, id) > capacity(bf16, id), `${id}: ${capacity(service, id)} requests/s in FP8, ${capacity(bf16, id)} in BF16`);

    await page.fill('#serving-gpus', '2');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.gpus_per_replica === 2);
    await settled(page);
    service = await cliService(page);
    const two = await showsChoice(page, service.choice, 'two GPUs per replica');
    assert.ok(service.offers.every((o) => o.deployments.every((d) => d.gpus_per_replica === 2)), 'every deployment has 2 GPUs a replica');
    assert.ok(two.cost > before.cost, `two GPUs a replica cost more: ${two.cost} against ${before.cost}`);

    // Back to the defaults: the scenario no longer says either.
    await page.fill('#serving-gpus', '');
    await page.selectOption('#serving-weights', 'bf16');
    await page.waitForFunction(() => {
      const sv = JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving;
      return sv.weights == null && sv.gpus_per_replica == null;
    });
    assert.deepEqual(Object.keys(await serving()).filter((k) => k === 'weights' || k === 'gpus_per_replica'), []);
    await settled(page);
    await showsChoice(page, (await cliService(page)).choice, 'back to the defaults');
  });

  test(`serving: a curve drawn with the pointer goes into the scenario and prices as in the CLI (${lang})`, async (t) => {
    const page = await openService(t, locale);
    const svg = page.locator('#traffic-draw');
    await svg.scrollIntoViewIfNeeded();
    const top = Number(await svg.getAttribute('data-top'));
    assert.ok(top >= 1, `the drawing reaches ${top} requests/s`);
    const box = await svg.boundingBox();
    // View-box units (640 x 160; bars from x 44 to 624, rates from y 134 (0) up to y 14 (top)).
    const at = (hour, share) => ({
      x: box.x + ((44 + (hour + 0.5) / 24 * 580) / 640) * box.width,
      y: box.y + ((134 - share * 120) / 160) * box.height,
    });
    // From half the top at hour 0 to nine tenths of it at hour 23, in a few quick moves: the
    // hours between the pointer's stops are filled in a straight line.
    const start = at(0, 0.5);
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    for (const h of [5, 11, 17, 23]) {
      const p = at(h, 0.5 + 0.4 * h / 23);
      await page.mouse.move(p.x, p.y, { steps: 2 });
    }
    // Nothing changes in the scenario before the pointer is released.
    assert.equal((await saved(page)).task.serving.traffic.name, 'steady_api');
    await page.mouse.up();
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.traffic.name === 'custom');
    const rates = (await saved(page)).task.serving.traffic.rps_by_hour;
    assert.equal(rates.length, 24);
    const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 0.03 * top, `${what}: ${got}, want about ${want}`);
    near(rates[0], 0.5 * top, 'hour 0');
    near(rates[23], 0.9 * top, 'hour 23');
    for (let h = 1; h < 24; h++) assert.ok(rates[h] >= rates[h - 1] - 0.02 * top, `rising at hour ${h}: ${rates}`);
    // The box and the bars show the drawn curve; the plan follows it.
    const typed = (await page.inputValue('#traffic-hours')).split('\n').map(Number);
    assert.deepEqual(typed, rates);
    const bars = await page.locator('#traffic-draw rect.curve-bar').evaluateAll((rs) => rs.map((r) => Number(r.dataset.rps)));
    assert.deepEqual(bars, rates);
    assert.equal(await page.inputValue('#traffic-preset'), 'custom');
    await settled(page);
    await showsChoice(page, (await cliService(page)).choice, 'a drawn curve');
  });

  test(`serving: a pasted curve is read line by line; a bad line is refused naming it (${lang})`, async (t) => {
    const page = await openService(t, locale);
    const kept = (await saved(page)).task.serving.traffic;
    const error = page.locator('#traffic-hours-error');
    const refuses = async (text, pattern, where) => {
      await page.fill('#traffic-hours', text);
      await error.filter({ hasText: /\S/ }).waitFor();
      const message = await error.textContent();
      t.diagnostic(`${where}: ${message}`);
      assert.match(message, pattern, `${where}: the line is named`);
      if (lang === 'zh') assert.match(message, CJK, `${where}: worded in Chinese`);
      else assert.doesNotMatch(message, CJK, `${where}: worded in English`);
      assert.deepEqual((await saved(page)).task.serving.traffic, kept, `${where}: a refused curve changes nothing`);
      return message;
    };
    const rates = Array.from({ length: 24 }, (_, h) => (h >= 9 && h < 18 ? 3 : 0.5));
    const bad = [...rates];
    bad[4] = 'abc';
    const message = await refuses(curve(bad, false), w.line(5), 'a word for a rate');
    assert.match(message, /abc/);
    if (lang === 'zh') assert.match(message, /每秒请求数/);
    else assert.match(message, /requests per second/);
    const shuffled = curve(rates, true).split('\n');
    [shuffled[6], shuffled[7]] = [shuffled[7], shuffled[6]];
    const order = await refuses(`hour,rps\n${shuffled.join('\n')}`, w.line(8), 'hours out of order');
    assert.match(order, lang === 'zh' ? /必须是 6/ : /must be 6/);
    await refuses(curve([...rates, 1], false), w.line(25), 'a row too many');
    assert.match(await error.textContent(), w.count);
    await refuses(`${curve(rates.slice(0, 10), true)}\n10,1,2\n`, w.line(11), 'a column too many');
    if (lang === 'zh') {
      const data = catalogData().sort((a, b) => b.length - a.length);
      assert.deepEqual(await englishOnPage(page, data), [], 'English words on the Chinese page, an error shown');
    }

    // A good `hour,rps` paste: the curve is the user's own, the error goes, the plan re-prices.
    await page.fill('#traffic-hours', `hour,rps\n${curve(rates, true)}\n`);
    await page.waitForFunction((want) => {
      const t = JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.traffic;
      return t.name === 'custom' && JSON.stringify(t.rps_by_hour) === JSON.stringify(want);
    }, rates);
    assert.equal((await error.textContent()).trim(), '');
    assert.equal(await page.inputValue('#traffic-preset'), 'custom');
    await settled(page);
    const service = await cliService(page);
    await showsChoice(page, service.choice, 'a pasted curve');
    assert.equal(Number(await page.inputValue('#traffic-mean')), Number((rates.reduce((a, b) => a + b, 0) / 24).toFixed(6)));
  });
}

test('serving: nothing English on the Chinese page, editor and panel in every state', async (t) => {
  const data = catalogData().sort((a, b) => b.length - a.length);
  const page = await openService(t, 'zh-CN');
  const check = async (where) => {
    assert.deepEqual(await englishOnPage(page, data), [], `${where}: English words on the Chinese page`);
    assert.ok(!(await page.locator('body').innerText()).includes('??'), `${where}: a label without wording`);
  };
  await check('inference API');
  for (const preset of ['office_hours', 'bursty_demo']) {
    await page.selectOption('#traffic-preset', preset);
    await page.waitForFunction((p) => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving.traffic.name === p, preset);
    await settled(page);
    await page.locator('#serving-choice').waitFor();
    await check(preset);
  }
  // A model that needs more than any card holds: no deployment, said in Chinese.
  await page.selectOption('#serving-model', { index: (await page.locator('#serving-model option').count()) - 1 });
  await settled(page);
  await page.locator('#serving-choice, #serving-problem').first().waitFor();
  await check('the last model of the list');
  // Bad numbers beside their fields.
  for (const [id, bad] of [['#traffic-mean', 'abc'], ['#prompt-mean', '0'], ['#ttft-target', '-1']]) {
    await page.fill(id, bad);
    await page.locator(`${id}-error`).filter({ hasText: /\S/ }).waitFor();
    assert.match(await page.locator(`${id}-error`).textContent(), CJK);
  }
  await check('refused numbers');
  // Turned off, the panel goes; on again, it is back.
  await page.uncheck('#serving-on');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).task.serving === undefined);
  await settled(page);
  assert.equal(await page.locator('#serving-panel').count(), 0);
  await page.check('#serving-on');
  await page.locator('#serving-choice').waitFor();
  await check('turned on again');
});

test('serving: the printout keeps the deployment chosen and why, leaves the editor, the table and the chart off, on one A4 page (en-US)', async (t) => {
  const page = await openService(t, 'en-US');
  await page.emulateMedia({ media: 'print' });
  for (const id of ['#recommended', '#ranking', '#serving-choice', '#serving-reason']) {
    assert.ok(await page.locator(id).isVisible(), `${id} is on the printout`);
  }
  for (const id of ['#serving-editor', '#traffic-hours', '#serving-table', '#serving-chart']) {
    assert.equal(await page.locator(id).isVisible(), false, `${id} is left off the printout`);
  }
  const pdf = await page.pdf({ format: 'A4', printBackground: false });
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, 'printout-serving-en-US.pdf'), pdf);
  const pages = pdf.toString('latin1').match(/\/Type\s*\/Page(?![s\w])/g) ?? [];
  assert.equal(pages.length, 1, `the printout takes ${pages.length} A4 pages`);
});
