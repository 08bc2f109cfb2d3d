//! The answer never depends on the number of threads: with the `parallel` feature (the CLI's
//! build) a plan priced on one thread and on several is identical, Monte Carlo and policies
//! included. Without the feature the plan runs on the calling thread and this file only checks
//! that two runs agree.

#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::trace::{AttachedTrace, parse_trace};
use gpufare_core::plan::plan_with_traces;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;

fn priced(threads: usize) -> String {
    let task = parse_task(include_str!("../../tests/golden/snapshot-task.json")).unwrap();
    let traces = [AttachedTrace {
        offer_id: "aws-use1-g5xl-spot".to_owned(),
        trace: parse_trace(
            "us-east-1c.json",
            include_str!(
                "../../tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json"
            ),
        )
        .unwrap(),
    }];
    let settings = PlanSettings {
        seed: 7,
        trials: 5000,
        ..PlanSettings::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        serde_json::to_string(
            &plan_with_traces(&task, default_catalog(), &traces, &settings).unwrap(),
        )
        .unwrap()
    })
}

#[test]
fn one_thread_and_several_give_the_same_plan() {
    let one = priced(1);
    assert!(one.contains("\"policy\""), "the plan priced policies");
    assert_eq!(one, priced(2));
    assert_eq!(one, priced(5));
}
