// gpufare's plan worker: runs the Monte Carlo off the page's main thread, so typing never waits
// for it. The page posts { id, scenario } (the scenario as JSON) and gets { id, plan } back: the
// plan as JSON, or null when the scenario cannot be planned (the page then shows why itself).
// If the module cannot be loaded the answer says `failed`, and the page plans by itself from then
// on. Messages that arrive while the module loads wait for it, in order.
import init, { plan } from './gpufare_plan.js';

const ready = init({ module_or_path: new URL('gpufare_plan_bg.wasm', import.meta.url) });
// A failed load is answered below, message by message; this only keeps it from also being
// reported as an unhandled rejection.
ready.catch(() => {});

self.onmessage = async (event) => {
  const { id, scenario } = event.data;
  try {
    await ready;
  } catch (error) {
    self.postMessage({ id, plan: null, failed: String(error) });
    return;
  }
  let answer = null;
  try {
    answer = plan(scenario) ?? null;
  } catch (error) {
    answer = null;
  }
  self.postMessage({ id, plan: answer });
};
