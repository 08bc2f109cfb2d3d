// Spreadsheets (issue 31): a catalog saved by Excel on a Chinese Windows (GB18030) or as "Unicode
// text" (UTF-16) imports with its Chinese provider names, and the import report names the
// encoding in the page's language; the budget downloads as an Excel workbook whose sheets are
// named in that language and which is byte for byte the one the CLI writes for the same
// scenario; the CSV downloads start with a UTF-8 byte-order mark (Excel's cue).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { launch, openPage, settled } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const BASE = process.env.GPUFARE_URL;
assert.ok(BASE, 'GPUFARE_URL must point at the served site (run through `cargo xtask e2e`)');
const ARTIFACTS = process.env.GPUFARE_ARTIFACTS ?? tmpdir();
const FIXTURES = join(here, '../fixtures/spreadsheets');

/** What each language calls things: the report's encoding note and the workbook's sheets. */
const WORDS = {
  en: {
    imported: (name, n, enc) => `${name}: ${n} offers imported (read as ${enc})`,
    sheets: ['Ranking', 'Cost breakdown', 'Hybrid plan', 'Assumptions and sources'],
    neither: 'neither UTF-8',
    workbook: 'spreadsheet workbook',
  },
  zh: {
    imported: (name, n, enc) => `${name}: ${n} 个方案已导入（编码：${enc}）`,
    sheets: ['排名', '费用明细', '混合方案', '假设、价格日期与来源'],
    neither: '既不是 UTF-8',
    workbook: '电子表格工作簿',
  },
};
const LANGS = [['en-US', 'en'], ['zh-CN', 'zh']];

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Opens the site in a fresh context in `locale`, failing the test on any page error. */
const open = (t, locale) => openPage(browser, t, BASE, locale, { acceptDownloads: true });

/** Imports `file` (a path, or {name, buffer}) as a catalog and returns the report's first line. */
async function importCatalog(page, file, name) {
  const before = await page.locator('#import-report li').allTextContents();
  await page.setInputFiles('#catalog-file', file);
  const line = page.locator('#import-report li').filter({ hasText: name }).first();
  await line.waitFor();
  const text = await line.textContent();
  assert.notDeepEqual(await page.locator('#import-report li').allTextContents(), before);
  return text;
}

/** Saves what clicking `selector` downloads and returns its bytes. */
async function download(page, selector, name) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const path = join(ARTIFACTS, name);
  await d.saveAs(path);
  return { path, bytes: readFileSync(path), suggested: d.suggestedFilename() };
}

/** The files of a zip archive by name, inflated (stored and deflated entries; the central directory is read). */
function unzip(buf) {
  const files = new Map();
  let end = buf.length - 22;
  while (end >= 0 && buf.readUInt32LE(end) !== 0x06054b50) end--;
  assert.ok(end >= 0, 'a zip has an end-of-central-directory record');
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(at), 0x02014b50, 'a central directory entry');
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLength = buf.readUInt16LE(at + 28);
    const extra = buf.readUInt16LE(at + 30);
    const comment = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    assert.equal(buf.readUInt32LE(local), 0x04034b50, `${name}: a local file header`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    files.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    at += 46 + nameLength + extra + comment;
  }
  return files;
}

for (const [locale, lang] of LANGS) {
  const w = WORDS[lang];

  test(`spreadsheets: a GB18030 and a UTF-16 catalog import with the encoding named, and the budget downloads as a workbook (${locale})`, async (t) => {
    const page = await open(t, locale);

    // Excel's "CSV" on a Chinese Windows: GB18030 (GBK) bytes, CRLF lines.
    const gb = await importCatalog(page, join(FIXTURES, 'quotes-gb18030.csv'), 'quotes-gb18030.csv');
    assert.equal(gb, w.imported('quotes-gb18030.csv', 4, 'GB18030'));
    await settled(page);
    await page.fill('#filter-text', 'q-');
    const row = (id) => page.locator(`#offers-table tr[data-offer="${id}"]`);
    await row('q-aliyun-a10-payg').waitFor();
    assert.match(await row('q-aliyun-a10-payg').textContent(), /阿里云/, 'the Chinese provider name survives');
    assert.match(await row('q-ucloud-4090-payg').textContent(), /优云智算/);

    // The same quotes as UTF-16LE: every id is taken now, so nothing is added, but it is read.
    const utf16 = await importCatalog(page, join(FIXTURES, 'quotes-utf16le.csv'), 'quotes-utf16le.csv');
    assert.equal(utf16, w.imported('quotes-utf16le.csv', 0, 'UTF-16LE'));

    // Bytes in no encoding the site reads, and a workbook where a CSV belongs.
    const latin = await importCatalog(page, { name: 'latin1.csv', mimeType: 'text/csv', buffer: Buffer.from([...Buffer.from('id,provider\nq1,Caf'), 0xe9, ...Buffer.from(',x\n')]) }, 'latin1.csv');
    assert.ok(latin.includes(w.neither), latin);
    assert.ok(latin.includes(lang === 'zh' ? '第 2 行' : 'line 2'), latin);
    const zip = await importCatalog(page, { name: 'quotes.xlsx', mimeType: 'application/octet-stream', buffer: Buffer.from('PK\x03\x04 not really a workbook') }, 'quotes.xlsx');
    assert.ok(zip.includes(w.workbook), zip);
    await page.fill('#filter-text', '');
    await settled(page);

    // The workbook: a zip whose sheets are named in the page's language, holding the Chinese names.
    const xlsx = await download(page, '#export-xlsx', `site-budget-${lang}.xlsx`);
    assert.equal(xlsx.suggested, 'gpufare-budget.xlsx');
    assert.equal(xlsx.bytes.subarray(0, 4).toString('latin1'), 'PK\x03\x04', 'an xlsx is a zip');
    const files = unzip(xlsx.bytes);
    const workbook = files.get('xl/workbook.xml');
    assert.ok(workbook, 'the workbook part');
    const sheets = [...workbook.matchAll(/<sheet name="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(sheets, w.sheets);
    const strings = files.get('xl/sharedStrings.xml');
    assert.ok(strings.includes('阿里云') && strings.includes('优云智算'), 'the provider names are in the workbook');
    assert.ok(strings.includes('q-aliyun-a10-payg'));

    // The same workbook as the CLI's for the same scenario, byte for byte: one builder, in core.
    const json = await download(page, '#export-json', `site-budget-${lang}.json`);
    const bin = process.env.GPUFARE_BIN;
    assert.ok(bin, 'GPUFARE_BIN must name the gpufare binary built in this run');
    const scenario = JSON.parse(json.bytes.toString('utf8')).scenario;
    const today = await page.evaluate(() => {
      const d = new Date();
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    });
    assert.ok(scenario, 'the budget carries its scenario');
    const cliPath = join(ARTIFACTS, `cli-budget-${lang}.xlsx`);
    execFileSync(bin, ['plan', '--scenario', json.path, '--format', 'xlsx', '--lang', lang, '--today', today, '-o', cliPath]);
    assert.ok(readFileSync(cliPath).equals(xlsx.bytes), 'the site\'s workbook differs from the CLI\'s');

    // The CSV downloads start with a UTF-8 byte-order mark and keep the names.
    const csv = await download(page, '#export-csv', `site-budget-${lang}.csv`);
    assert.deepEqual([...csv.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the budget CSV starts with a BOM');
    assert.ok(csv.bytes.toString('utf8').includes(',阿里云,'));
    const catalog = await download(page, '#catalog-export-csv', `site-catalog-${lang}.csv`);
    assert.deepEqual([...catalog.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the catalog CSV starts with a BOM');
    assert.ok(catalog.bytes.toString('utf8').slice(1).startsWith('id,provider,'));
    assert.ok(catalog.bytes.toString('utf8').includes(',优云智算,'));
  });
}

test('spreadsheets: the saved catalog CSV imports back as UTF-8 with BOM', async (t) => {
  const page = await open(t, 'en-US');
  await page.fill('#filter-text', 'autodl-4090');
  await settled(page);
  const saved = await download(page, '#catalog-export-csv', 'site-catalog-roundtrip.csv');
  writeFileSync(join(ARTIFACTS, 'site-catalog-roundtrip.csv'), saved.bytes);
  const line = await importCatalog(page, { name: 'roundtrip.csv', mimeType: 'text/csv', buffer: saved.bytes }, 'roundtrip.csv');
  // Every id is already in the catalog, so none is added; the encoding is read from the BOM.
  assert.equal(line, 'roundtrip.csv: 0 offers imported (read as UTF-8 with BOM)');
});
