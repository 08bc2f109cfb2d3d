//! The site's Monte Carlo, off the page's main thread.
//!
//! `web/plan-worker.js` loads this module in a Web Worker; the page posts its scenario as JSON
//! after every edit and gets the plan back as JSON, so typing never waits for the simulation.
//! Where the browser reports more than one core, that worker splits the offers into shares
//! ([`price_share`], one per helper worker and one for itself) and puts the plan together from
//! them ([`plan_from_shares`]). It is built for speed (profile `wasm-worker`) while the page's
//! own module stays tuned for size. Nothing here decides anything: it parses, calls
//! `gpufare-core` and serialises.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::share::{PricedShare, Share};
use gpufare_core::scenario::document::parse_scenario;
use wasm_bindgen::prelude::wasm_bindgen;

/// The plan of the scenario in `scenario_json`, priced against the embedded catalog, as JSON.
///
/// `None` when the scenario cannot be read or cannot be planned: the page then plans it itself,
/// which fails at once with the message in the user's language (every check runs before the
/// simulation).
#[wasm_bindgen]
#[must_use]
pub fn plan(scenario_json: &str) -> Option<String> {
    let scenario = parse_scenario(scenario_json).ok()?;
    let result = scenario.plan(default_catalog()).ok()?;
    serde_json::to_string(&result).ok()
}

/// The first answer to the scenario in `scenario_json` (the embedded catalog): the headline of
/// its plan priced with the closed forms alone, as JSON, for the page to show while the full plan
/// is on its way; `None` when the scenario cannot be read or planned.
#[wasm_bindgen]
#[must_use]
pub fn first_answer(scenario_json: &str) -> Option<String> {
    let scenario = parse_scenario(scenario_json).ok()?;
    let headline = scenario.first_answer(default_catalog()).ok()?;
    serde_json::to_string(&headline).ok()
}

/// Share `index` of `count` of the plan of the scenario in `scenario_json` (the embedded
/// catalog), as JSON; `None` when the scenario cannot be read or planned, or the share does not
/// exist.
#[wasm_bindgen]
#[must_use]
pub fn price_share(scenario_json: &str, index: u32, count: u32) -> Option<String> {
    let scenario = parse_scenario(scenario_json).ok()?;
    let share = scenario
        .price_share(default_catalog(), Share { index, count })
        .ok()?;
    serde_json::to_string(&share).ok()
}

/// The plan of the scenario in `scenario_json` put together from `shares_json`, a JSON array of
/// the shares [`price_share`] gave for it, as JSON; `None` when anything cannot be read or the
/// shares do not price every offer exactly once.
#[wasm_bindgen]
#[must_use]
pub fn plan_from_shares(scenario_json: &str, shares_json: &str) -> Option<String> {
    let scenario = parse_scenario(scenario_json).ok()?;
    let shares: Vec<PricedShare> = serde_json::from_str(shares_json).ok()?;
    let result = scenario.plan_from_shares(default_catalog(), shares).ok()?;
    serde_json::to_string(&result).ok()
}

#[cfg(test)]
mod tests {
    use super::{first_answer, plan, plan_from_shares, price_share};
    use gpufare_core::offers::default::default_catalog;
    use gpufare_core::plan::PlanResult;
    use gpufare_core::plan::headline::Headline;
    use gpufare_core::scenario::document::Scenario;
    use gpufare_core::task::presets::preset;

    fn scenario(name: &str) -> Scenario {
        Scenario::new(preset(name).expect("a built-in preset"), Some(name))
    }

    /// What the worker answers, read back, is the plan the page would compute itself, to the bit.
    #[test]
    fn the_answer_is_the_pages_own_plan() {
        for name in ["qlora_7b", "code_check", "full_finetune_multi_gpu"] {
            let s = scenario(name);
            let text = serde_json::to_string(&s).expect("a scenario serialises");
            let answer = plan(&text).expect("a valid scenario is planned");
            let read: PlanResult = serde_json::from_str(&answer).expect("the answer parses");
            assert_eq!(read, s.plan(default_catalog()).expect("plans"), "{name}");
        }
    }

    /// Shares priced apart and put together, as the workers do it, give the worker's own plan.
    #[test]
    fn shares_put_together_are_the_plan() {
        for name in ["qlora_7b", "full_finetune_multi_gpu"] {
            let text = serde_json::to_string(&scenario(name)).expect("a scenario serialises");
            let whole = plan(&text).expect("planned");
            for count in [1, 2, 4] {
                let shares: Vec<String> = (0..count)
                    .map(|i| price_share(&text, i, count).expect("a share"))
                    .collect();
                let joined = format!("[{}]", shares.join(","));
                assert_eq!(
                    plan_from_shares(&text, &joined),
                    Some(whole.clone()),
                    "{name} {count}"
                );
                // One share missing: no answer.
                if count > 1 {
                    let short = format!("[{}]", shares[1..].join(","));
                    assert_eq!(plan_from_shares(&text, &short), None);
                }
            }
        }
        let text = serde_json::to_string(&scenario("qlora_7b")).expect("serialises");
        assert_eq!(price_share(&text, 2, 2), None);
        assert_eq!(price_share("{", 0, 1), None);
        assert_eq!(plan_from_shares(&text, "{"), None);
        assert_eq!(plan_from_shares(&text, "[]"), None);
    }

    /// The first answer is the headline of the closed-form plan: one trial, the plan's kind of
    /// capacity, and each row's expected total as that plan prices it.
    #[test]
    fn the_first_answer_is_the_closed_form_headline() {
        for name in ["qlora_7b", "code_check", "full_finetune_multi_gpu"] {
            let s = scenario(name);
            let text = serde_json::to_string(&s).expect("a scenario serialises");
            let first: Headline =
                serde_json::from_str(&first_answer(&text).expect("answered")).expect("parses");
            let mut quick = s.clone();
            quick.settings.trials = 1;
            let closed = quick.plan(default_catalog()).expect("plans");
            assert_eq!(first, closed.headline(), "{name}");
            assert_eq!(first.trials, 1);
            let full = s.plan(default_catalog()).expect("plans");
            assert_eq!(first.choice, full.decision.choice, "{name}");
            assert!(!first.ranking.is_empty(), "{name}");
        }
        assert_eq!(first_answer("{"), None);
    }

    /// A scenario that cannot be read, or cannot be planned, gets no answer (and no panic).
    #[test]
    fn bad_scenarios_get_no_answer() {
        assert_eq!(plan(""), None);
        assert_eq!(plan("{"), None);
        assert_eq!(plan("[]"), None);
        let mut s = scenario("qlora_7b");
        s.settings.trials = 0;
        assert_eq!(plan(&serde_json::to_string(&s).expect("serialises")), None);
    }
}
