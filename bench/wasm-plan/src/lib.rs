//! The plan benchmark of `core/benches/plan.rs`, compiled to wasm32 so `cargo xtask bench` can
//! time the very same work in Node and in Chromium (`bench/wasm-plan.mjs`) and set it beside the
//! native figures. The crate only times; what is priced comes from gpufare-core unchanged, built
//! without the `parallel` feature as the site's wasm is.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::{DEFAULT_TRIALS, PlanSettings};
use gpufare_core::task::document::{TaskProfile, parse_task};
use wasm_bindgen::prelude::*;

/// The task every plan benchmark prices (the golden snapshot's).
const TASK: &str = include_str!("../../../tests/golden/snapshot-task.json");

/// The benchmark cases, by the names `bench/wasm-plan.mjs` and `cargo xtask bench` use, with
/// their Monte Carlo trials per offer: the native bench's 10,000, the site's default, and closed
/// forms only (1 trial).
const CASES: [(&str, u32); 3] = [
    ("trials-10000", 10_000),
    ("trials-default", DEFAULT_TRIALS),
    ("closed-forms", 1),
];

/// The names of the cases `plan_times` accepts.
#[wasm_bindgen]
pub fn cases() -> Vec<String> {
    CASES.iter().map(|(name, _)| (*name).to_owned()).collect()
}

/// Offers in the default catalog, for the report's labels.
#[wasm_bindgen]
pub fn offer_count() -> u32 {
    u32::try_from(default_catalog().offers.len()).unwrap_or(u32::MAX)
}

/// Prices the benchmark plan `warmup` times untimed, then `iterations` times, and returns each
/// timed plan's duration in milliseconds (from `performance.now()`).
#[wasm_bindgen]
pub fn plan_times(case: &str, iterations: u32, warmup: u32) -> Result<Vec<f64>, JsError> {
    let trials = CASES
        .iter()
        .find(|(name, _)| *name == case)
        .map(|(_, trials)| *trials)
        .ok_or_else(|| JsError::new(&format!("unknown case {case:?}")))?;
    let task = parse_task(TASK).map_err(|e| JsError::new(&e.to_string()))?;
    let settings = PlanSettings {
        seed: 42,
        trials,
        ..PlanSettings::default()
    };
    let now = clock()?;
    for _ in 0..warmup {
        price(&task, &settings)?;
    }
    let mut times = Vec::with_capacity(usize::try_from(iterations).unwrap_or(0));
    for _ in 0..iterations {
        let start = now()?;
        price(&task, &settings)?;
        times.push(now()? - start);
    }
    Ok(times)
}

fn price(task: &TaskProfile, settings: &PlanSettings) -> Result<(), JsError> {
    let result = plan(std::hint::black_box(task), default_catalog(), settings)
        .map_err(|e| JsError::new(&e.to_string()))?;
    std::hint::black_box(result);
    Ok(())
}

/// `performance.now()` of the global scope (a window in Chromium, Node's `globalThis`): finer
/// than `Date.now()`'s whole milliseconds.
fn clock() -> Result<impl Fn() -> Result<f64, JsError>, JsError> {
    let performance = js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .map_err(|_| JsError::new("no performance object"))?;
    let now: js_sys::Function = js_sys::Reflect::get(&performance, &"now".into())
        .map_err(|_| JsError::new("no performance.now"))?
        .dyn_into()
        .map_err(|_| JsError::new("performance.now is not a function"))?;
    Ok(move || {
        now.call0(&performance)
            .ok()
            .and_then(|t| t.as_f64())
            .ok_or_else(|| JsError::new("performance.now() gave no number"))
    })
}
