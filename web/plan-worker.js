// gpufare's plan worker: runs the Monte Carlo off the page's main thread, so typing never waits
// for it. The page posts { id, scenario, cores } (the scenario as JSON, the cores it sees) and
// gets { id, plan } back: the plan as JSON, or null when the scenario cannot be planned (the page
// then shows why itself). Started under the name FIRST, it answers { id, scenario } with
// { id, first }: the headline of the plan priced with the closed forms alone (a millisecond or
// two), which the page shows, marked provisional, until the full plan arrives.
// If the module cannot be loaded the answer says `failed`, and the page plans by itself from then
// on. Messages are answered one at a time, in order; those that arrive while the module loads
// wait for it.
//
// Where the page sees more than two cores, this worker starts helpers (this same script, named
// SHARE) and splits every plan into shares of the offers: each helper prices one, this worker
// prices the first and puts the plan together, which is the same plan, to the bit, as priced in
// one piece. A helper that cannot start or fails is given up and its share priced here.
import init, { plan, price_share, plan_from_shares, first_answer } from './gpufare_plan.js';

const SHARE = 'gpufare-plan-share';
const FIRST = 'gpufare-plan-first';
// Shares at most: the default catalog's interruptible offers, where the time goes, are a score,
// and every share repeats the plan's set-up and holds its own copy of the module.
const MAX_SHARES = 4;

const ready = init({ module_or_path: new URL('gpufare_plan_bg.wasm', import.meta.url) });
// A failed load is answered below, message by message; this only keeps it from also being
// reported as an unhandled rejection.
ready.catch(() => {});

// Answers every message with `{ id, [field]: work(message) }`, one message at a time, in order;
// `null` when the work fails, and `failed` as well when the module could not be loaded.
function serve(field, work) {
  let queue = Promise.resolve();
  self.onmessage = (event) => {
    const turn = async () => {
      const { id } = event.data;
      try {
        await ready;
      } catch (error) {
        self.postMessage({ id, [field]: null, failed: String(error) });
        return;
      }
      let answer = null;
      try {
        answer = (await work(event.data)) ?? null;
      } catch (error) {
        answer = null;
      }
      self.postMessage({ id, [field]: answer });
    };
    queue = queue.then(turn, turn);
  };
}

if (self.name === FIRST) {
  serve('first', ({ scenario }) => first_answer(scenario));
} else if (self.name === SHARE) {
  // A helper: { id, scenario, index, count } in, { id, share } out (null: not priced).
  serve('share', ({ scenario, index, count }) => price_share(scenario, index, count));
} else {
  // Started with the first message, which says how many cores the page sees.
  let helpers = null;
  let asked = 0;

  serve('plan', ({ scenario, cores }) => {
    helpers ??= startHelpers(Number(cores) || Number(self.navigator?.hardwareConcurrency) || 1);
    return planInShares(scenario);
  });

  // The plan of `scenario` as JSON, or null: in one piece without helpers, else in shares.
  async function planInShares(scenario) {
    const live = helpers.filter((h) => h.alive);
    if (live.length === 0) {
      return plan(scenario) ?? null;
    }
    const count = live.length + 1;
    const request = ++asked;
    const theirs = live.map((h, k) => h.ask({ id: request, scenario, index: k + 1, count }));
    const own = price_share(scenario, 0, count) ?? null;
    if (own === null) {
      // The scenario cannot be planned; the helpers' answers, when they come, are dropped.
      return null;
    }
    const shares = [own];
    const answers = await Promise.all(theirs);
    for (let k = 0; k < answers.length; k++) {
      const share = answers[k] ?? price_share(scenario, k + 1, count) ?? null;
      if (share === null) {
        return null;
      }
      shares.push(share);
    }
    return plan_from_shares(scenario, `[${shares.join(',')}]`) ?? null;
  }
}

// Helpers, each with `ask(message)`: a promise of its share as JSON, or null if it failed (it is
// then given up). One core is left to the page, whose frames the edits wait for, so the plan gets
// one share per core but that one (up to MAX_SHARES): no helper on one or two cores, where a
// helper slowed the page's frames more than it sped up the plan.
function startHelpers(cores) {
  const shares = Math.max(1, Math.min(cores - 1, MAX_SHARES));
  const helpers = [];
  for (let k = 1; k < shares; k++) {
    let worker;
    try {
      worker = new Worker(import.meta.url, { type: 'module', name: SHARE });
    } catch (error) {
      break;
    }
    const waiting = new Map();
    const helper = {
      alive: true,
      ask(message) {
        if (!helper.alive) {
          return Promise.resolve(null);
        }
        return new Promise((resolve) => {
          waiting.set(message.id, resolve);
          try {
            worker.postMessage(message);
          } catch (error) {
            giveUp();
          }
        });
      },
    };
    const giveUp = () => {
      helper.alive = false;
      worker.terminate();
      for (const resolve of waiting.values()) {
        resolve(null);
      }
      waiting.clear();
    };
    worker.onmessage = (event) => {
      const { id, share, failed } = event.data;
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.(share ?? null);
      if (failed) {
        giveUp();
      }
    };
    worker.onerror = giveUp;
    worker.onmessageerror = giveUp;
    helpers.push(helper);
  }
  return helpers;
}
