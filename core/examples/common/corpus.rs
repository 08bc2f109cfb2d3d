//! A corpus of varied plans for the developer examples: the snapshot task with its work, runs,
//! memory, GPUs, deadline, checkpoints, value of time, currency and spot policy drawn from a
//! seeded stream, with a seed and a number of Monte Carlo trials.

use gpufare_core::numbers::rng::Stream;
use gpufare_core::plan::settings::PlanSettings;
use serde_json::{Value, json};

/// The snapshot task the corpus varies.
pub fn base_task() -> Value {
    serde_json::from_str(include_str!("../../../tests/golden/snapshot-task.json"))
        .expect("the snapshot task is JSON")
}

/// Plan `i` of the corpus: the task (as JSON, which the task parser may refuse) and the settings.
pub fn varied(base: &Value, i: u64) -> (Value, PlanSettings) {
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
    (task, settings)
}
