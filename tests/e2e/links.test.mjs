// Multi-GPU links on the page (issue 33, item 5), in English and in Chinese: the multi-GPU
// preset's data-parallel fields hold the task's model size and steps; the offers table names what
// links each multi-GPU offer's cards; a quote of 8 cards in two nodes of 4 on 25 Gbit/s is
// priced over that network, as the CLI prices the same scenario; emptying the model size goes
// back to the fixed scaling; tensor parallelism prices each group's exchange over NVLink and a
// PCIe quote is refused for it, as in the CLI; nothing English is left on the Chinese page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cliOptions, launch, openPage, openPanel, saved, settled } from './browser.mjs';
import { catalogData, englishOnPage } from './language.mjs';

const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');

/** What each language calls things the tests look for. */
const WORDS = {
  en: { nodes: /2 nodes · 25 Gbit\/s TCP/, nvlink: /NVLink 4 with NVSwitch/ },
  zh: { nodes: /2 个节点 · 25 Gbit\/s TCP/, nvlink: /NVLink 4 加 NVSwitch/ },
};

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) {
  const w = WORDS[lang];
  test(`links: data-parallel fields, the links of multi-GPU offers and a two-node quote priced over its network, as in the CLI (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await page.selectOption('#preset', 'full_finetune_multi_gpu');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === 'full_finetune_multi_gpu');
    await settled(page);
    const task = (await saved(page)).task;
    assert.equal(await page.inputValue('#dp-params'), String(task.data_parallel.params_b));
    assert.equal(await page.inputValue('#dp-steps'), String(task.data_parallel.steps));

    // Each multi-GPU offer names its link, as core reads it (the card's NVLink by default).
    const h100 = page.locator('#offers-table tr', { hasText: '8 × H100-SXM' }).first();
    assert.match(await h100.locator('.offer-links').textContent(), w.nvlink);

    // A quote of 8 A100s in two nodes of 4 on 25 Gbit/s TCP.
    await openPanel(page, '.add-offer');
    await page.selectOption('#new-gpu', 'A100-80GB');
    await page.fill('#new-vram', '80');
    await page.fill('#new-gpu-count', '8');
    await page.fill('#new-gpus-per-node', '4');
    await page.fill('#new-node-network', '25');
    await page.fill('#new-price', '80');
    await page.click('#add-offer');
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).edits?.added ?? [])
      .some((o) => o.id === 'custom-1' && o.gpus_per_node === 4 && o.node_network_gbps === 25));
    await settled(page);
    assert.match(await page.locator('#offers-table tr[data-offer="custom-1"] .offer-links').textContent(), w.nodes);
    const cli = (await cliOptions(page)).get('custom-1');
    assert.equal(cli.communication.link, 'network_tcp');
    assert.equal(cli.communication.nodes, 2);

    // The details of that offer show the same exchange.
    await openPanel(page, '#offer-details');
    await page.selectOption('#details-offer', 'custom-1');
    const fact = page.locator('#sharing-facts[data-offer="custom-1"] dd[data-key="communication"]');
    assert.equal(await fact.getAttribute('data-source'), 'network_tcp');
    // Two decimals without trailing zeros, as the site writes numbers.
    const exchange = cli.communication.comm_s_per_step.toFixed(2).replace(/\.?0+$/, '');
    assert.ok((await fact.textContent()).includes(exchange), `the exchange of ${exchange} s per step`);

    if (lang === 'zh') {
      const data = catalogData().sort((a, b) => b.length - a.length);
      assert.deepEqual(await englishOnPage(page, data), [], 'English words on the Chinese page');
    }

    // Without a model size the plan goes back to the fixed scaling; the other fields go.
    await page.fill('#dp-params', '');
    await page.locator('#dp-params').blur();
    await page.waitForFunction(() => !JSON.parse(localStorage.getItem('gpufare.scenario')).task.data_parallel);
    await page.locator('#dp-steps').waitFor({ state: 'detached' });
    await settled(page);
    assert.equal((await cliOptions(page)).get('custom-1').communication, undefined);
  });

  test(`links: tensor parallelism prices each group's exchange over NVLink and refuses a PCIe quote, as in the CLI (${lang})`, async (t) => {
    const page = await openPage(browser, t, BASE, locale);
    await page.selectOption('#preset', 'full_finetune_multi_gpu');
    await page.waitForFunction(() => JSON.parse(localStorage.getItem('gpufare.scenario')).preset === 'full_finetune_multi_gpu');
    await settled(page);
    assert.equal(await page.locator('#dp-hidden').count(), 0, 'the model shape is asked for only with tensor parallelism');
    await page.fill('#dp-tensor-parallel', '8');
    await page.locator('#dp-hidden').waitFor();
    await page.fill('#dp-hidden', '4096');
    await page.fill('#dp-layers', '32');
    await page.fill('#dp-tokens', '1048576');
    await page.locator('#dp-tokens').blur();
    await page.waitForFunction(() => {
      const dp = JSON.parse(localStorage.getItem('gpufare.scenario')).task.data_parallel;
      return dp.tensor_parallel === 8 && dp.hidden === 4096 && dp.layers === 32 && dp.tokens_per_step === 1048576;
    });
    // A quote of 8 A100s on PCIe: no NVLink domain holds a group of 8.
    await openPanel(page, '.add-offer');
    await page.selectOption('#new-gpu', 'A100-80GB');
    await page.fill('#new-vram', '80');
    await page.fill('#new-gpu-count', '8');
    await page.selectOption('#new-interconnect', 'pcie');
    await page.fill('#new-price', '60');
    await page.click('#add-offer');
    await page.waitForFunction(() => (JSON.parse(localStorage.getItem('gpufare.scenario')).edits?.added ?? [])
      .some((o) => o.id === 'custom-1' && o.interconnect === 'pcie'));
    await settled(page);
    const options = await cliOptions(page);
    const quote = options.get('custom-1');
    assert.equal(quote.feasible, false);
    assert.deepEqual(quote.reasons.map((r) => r.rule), ['tensor_parallel_needs_nvlink']);
    await openPanel(page, '#infeasible');
    const reason = page.locator('#infeasible li[data-offer="custom-1"] li[data-rule="tensor_parallel_needs_nvlink"]');
    assert.match(await reason.textContent(), lang === 'zh' ? /8 路张量并行/ : /tensor parallelism over 8 GPUs/);

    // An NVLink offer of 8: the details show the group's exchange the CLI priced.
    const [id, nvlink] = [...options].find(([, o]) => o.feasible && o.communication?.tensor_parallel === 8);
    assert.ok(nvlink.communication.tensor_s_per_step > 0);
    await openPanel(page, '#offer-details');
    await page.selectOption('#details-offer', id);
    const tensor = page.locator(`#sharing-facts[data-offer="${id}"] dd[data-key="communication"] .tensor-parallel`);
    assert.equal(await tensor.getAttribute('data-tp'), '8');
    assert.ok(Math.abs(Number(await tensor.getAttribute('data-seconds')) - nvlink.communication.tensor_s_per_step) < 1e-6,
      `${await tensor.getAttribute('data-seconds')} s on the page, ${nvlink.communication.tensor_s_per_step} s in the CLI`);
    assert.match(await tensor.textContent(), lang === 'zh' ? /张量并行/ : /tensor parallel in groups of 8/);
    if (lang === 'zh') {
      const data = catalogData().sort((a, b) => b.length - a.length);
      assert.deepEqual(await englishOnPage(page, data), [], 'English words on the Chinese page');
    }
  });
}
