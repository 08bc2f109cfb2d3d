//! One hash of many varied plans, for changes that must not change any result (speed work,
//! refactors): run it before and after, and the two lines must match.
//!
//! `cargo run --release -p gpufare-core --example plan_digest [PLANS]` (default 600). Each plan
//! varies the snapshot task (work, runs, memory, GPUs, deadline, checkpoints, value of time,
//! currency, spot policy), the seed and the Monte Carlo trials (1 to 10,000); the whole JSON of
//! every plan goes into the hash, refusals included.
// A developer's tool beside the library, not part of it: it may read its command line.
#![allow(clippy::disallowed_methods)]

use gpufare_core::numbers::rng::{Stream, fnv1a};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;
use serde_json::{Value, json};

fn main() {
    let plans: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(600);
    let base: Value =
        serde_json::from_str(include_str!("../../tests/golden/snapshot-task.json")).unwrap();
    let catalog = default_catalog();
    let mut digest = 0xcbf2_9ce4_8422_2325_u64;
    let mut refused = 0;
    for i in 0..plans {
        let mut s = Stream::new(i, "plan-digest");
        let mut pick = |n: u64| (s.uniform() * n as f64) as u64;
        let mut task = base.clone();
        task["work_hours"] = json!([0.05, 0.5, 3.0, 6.0, 24.0, 120.0, 700.0][pick(7) as usize]);
        task["runs"] = json!(1 + pick(6));
        task["vram_gib"] = json!([6.0, 14.0, 40.0, 79.0, 150.0][pick(5) as usize]);
        task["gpus"] = json!([1, 1, 1, 2, 8][pick(5) as usize]);
        task["deadline_hours"] = match pick(3) {
            0 => Value::Null,
            1 => json!(48),
            _ => json!(1 + pick(400)),
        };
        task["checkpoint"] = match pick(3) {
            0 => Value::Null,
            1 => json!({ "interval_hours": 0.5, "restart_overhead_hours": 0.1 }),
            _ => {
                json!({ "interval_hours": 2.0, "restart_overhead_hours": 0.25, "save_minutes": 3 })
            }
        };
        task["value_of_time_per_hour"] = json!(pick(120).to_string());
        task["currency"] = json!(if pick(2) == 0 { "CNY" } else { "USD" });
        let policies = [
            Value::Null,
            json!({ "kind": "spot_only" }),
            json!({ "kind": "deadline_aware" }),
            json!({ "kind": "fallback_after", "preemptions": 2 }),
        ];
        task["spot_policy"] = policies[pick(4) as usize].clone();
        let trials = [1, 7, 200, 2_000, 10_000][pick(5) as usize];
        let settings = PlanSettings {
            seed: pick(1_000),
            trials,
            ..PlanSettings::default()
        };
        let text = serde_json::to_string(&task).unwrap();
        let line = match parse_task(&text) {
            Ok(t) => match plan(&t, catalog, &settings) {
                Ok(result) => serde_json::to_string(&result).unwrap(),
                Err(e) => format!("plan error: {e}"),
            },
            Err(e) => {
                refused += 1;
                format!("task error: {e}")
            }
        };
        digest = (digest ^ fnv1a(&line)).wrapping_mul(0x0100_0000_01b3);
    }
    println!("{plans} plans ({refused} tasks refused): digest {digest:016x}");
}
