// What a Chinese page may show in Latin letters: data from the catalog, technical terms, and
// anything inside `translate="no"`, backquotes or quotation marks. Shared by every e2e file that
// checks a Chinese page.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** A CSV's rows as arrays of fields (quoted fields with commas and doubled quotes). */
export function csvRows(text) {
  const rows = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const fields = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') { fields.push(field); field = ''; } else field += c;
    }
    fields.push(field);
    rows.push(fields);
  }
  return rows;
}

/** Data shown as it is on any page (offer ids, providers, regions, GPUs, price sources and notes). */
export function catalogData() {
  const [header, ...rows] = csvRows(readFileSync(join(here, '../../core/data/catalog.csv'), 'utf8'));
  const keep = ['id', 'provider', 'region', 'region_name', 'gpu', 'as_of', 'source', 'estimate_note', 'interruption_source'].map((k) => header.indexOf(k));
  return rows.flatMap((r) => keep.map((i) => r[i])).filter((v) => v && v.length > 1);
}

// Technical words a Chinese page uses as they are: units, product and format names, acronyms.
export const TECHNICAL = new Set(('GPU GPUs VRAM GiB MiB GB MB KB TB TFLOPS CNY USD MIG vGPU MPS PCIe Gen CUDA NVML NVIDIA LoRA QLoRA SD SDXL ' +
  'Flux dev DDP FSDP ZeRO JSON CSV Markdown SkyPilot vms csv json HTTP TCP IOPS OOM VPC SSH API GEMM Kaggle Stable Diffusion gpufare probe ' +
  'AdamW KV VAE ControlNet AWS GCP ECC CPU HAMi cGPU Mbit RTT InstanceType Price Region base64 TLS P50 P90 P99 format_version Llama Qwen ' +
  'Mistral DeepSeek GLM token KiB MAD Excel xlsx xls UTF BOM NVLink NVSwitch RDMA Gbit InfiniBand RoCE EFA').split(' '));

/** Words of visible text (and titles and labels) outside `translate="no"` that are neither data nor technical terms. */
export async function englishOnPage(page, data) {
  const text = await page.evaluate(() => {
    const out = [];
    const skip = (el) => el.closest('[translate="no"], script, style, noscript');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || skip(el) || !n.textContent.trim()) continue;
      if (el.closest('svg') ? el.tagName.toLowerCase() === 'title' : !el.checkVisibility()) continue;
      out.push(n.textContent);
    }
    for (const el of document.querySelectorAll('[aria-label]')) {
      if (skip(el) || !el.checkVisibility?.()) continue;
      out.push(el.getAttribute('aria-label'));
    }
    return out.join('\n');
  });
  // Code in backquotes and values in quotation marks (what a person typed, a name from a file) are
  // shown as they are.
  let rest = text.replace(/`[^`]*`/g, ' ').replace(/“[^”]*”/g, ' ');
  for (const v of data) rest = rest.split(v).join(' ');
  const words = rest.split(/[\s,;:!?()（）“”"'’、，。：；·—–×<>=+*|[\]{}%…◆→/]+/);
  return [...new Set(words.filter((w) => /^[A-Za-z]{2,}$/.test(w) && !TECHNICAL.has(w)))];
}
