//! The site's Monte Carlo, off the page's main thread.
//!
//! `web/plan-worker.js` loads this module in a Web Worker; the page posts its scenario as JSON
//! after every edit and gets the plan back as JSON, so typing never waits for the simulation.
//! It is built for speed (profile `wasm-worker`) while the page's own module stays tuned for
//! size. Nothing here decides anything: it parses, calls `gpufare-core` and serialises.

use gpufare_core::offers::default::default_catalog;
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

#[cfg(test)]
mod tests {
    use super::plan;
    use gpufare_core::offers::default::default_catalog;
    use gpufare_core::plan::PlanResult;
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
