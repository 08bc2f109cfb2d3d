//! How often a quick first answer recommends another offer than the full plan, and what it costs:
//! the groundwork of the speed issue's "answer in the frame of the keystroke".
//!
//! `cargo run --release -p gpufare-core --example first_answer [PLANS]` (default 400). For each
//! plan of the varied corpus (see `common/corpus.rs`) that the task rules accept, the plan at the
//! site's default trials is the refined answer; the candidates are the closed forms alone (1
//! trial) and a small Monte Carlo (20 and 200 trials, the same seed). For each candidate it
//! prints the share of plans whose recommended offer differs, whose kind of capacity (shared,
//! dedicated, ...) differs, and whose first five ranked offers differ, and the candidate's median
//! time natively on one thread; the last line is the same as JSON.
// A developer's tool beside the library, not part of it: it reads its command line and the clock.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "common/corpus.rs"]
mod corpus;

use std::time::Instant;

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::settings::{DEFAULT_TRIALS, PlanSettings};
use gpufare_core::plan::{PlanResult, plan};
use gpufare_core::task::document::parse_task;
use serde_json::json;

/// The first five ranked offers.
fn top(p: &PlanResult) -> Vec<&str> {
    p.options
        .iter()
        .take(5)
        .map(|o| o.offer_id.as_str())
        .collect()
}

fn main() {
    let plans: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400);
    let base = corpus::base_task();
    let catalog = default_catalog();
    let candidates = [1_u32, 20, 200];
    // Per candidate: plans compared, offer differs, choice differs, top five differ, times (s).
    let mut tally = vec![(0_u32, 0_u32, 0_u32, 0_u32, Vec::new()); candidates.len()];
    for i in 0..plans {
        let (task, settings) = corpus::varied(&base, i);
        let Ok(task) = parse_task(&task.to_string()) else {
            continue;
        };
        let refined_settings = PlanSettings {
            trials: DEFAULT_TRIALS,
            ..settings
        };
        let Ok(refined) = plan(&task, catalog, &refined_settings) else {
            continue;
        };
        for (k, &trials) in candidates.iter().enumerate() {
            let quick = PlanSettings {
                trials,
                ..refined_settings.clone()
            };
            let start = Instant::now();
            let Ok(first) = plan(&task, catalog, &quick) else {
                continue;
            };
            let t = &mut tally[k];
            t.4.push(start.elapsed().as_secs_f64());
            t.0 += 1;
            t.1 +=
                u32::from(first.decision.recommended_offer != refined.decision.recommended_offer);
            t.2 += u32::from(first.decision.choice != refined.decision.choice);
            t.3 += u32::from(top(&first) != top(&refined));
        }
    }
    let mut rows = Vec::new();
    for (k, &trials) in candidates.iter().enumerate() {
        let (n, offer, choice, top5, times) = &mut tally[k];
        times.sort_by(f64::total_cmp);
        let median_ms = times.get(times.len() / 2).copied().unwrap_or(0.0) * 1e3;
        let pct = |x: u32| 100.0 * f64::from(x) / f64::from((*n).max(1));
        println!(
            "first answer at {trials} trial(s) against {DEFAULT_TRIALS}: {n} plans; recommended offer differs in {offer} ({:.1} %), kind of capacity in {choice} ({:.1} %), first five offers in {top5} ({:.1} %); median {median_ms:.2} ms natively, one thread",
            pct(*offer),
            pct(*choice),
            pct(*top5)
        );
        rows.push(json!({
            "trials": trials,
            "plans": n,
            "offer_differs": offer,
            "choice_differs": choice,
            "top5_differs": top5,
            "median_ms": median_ms,
        }));
    }
    println!(
        "{}",
        json!({ "refined_trials": DEFAULT_TRIALS, "candidates": rows })
    );
}
