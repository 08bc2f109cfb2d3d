//! A whole plan over the default catalog, Monte Carlo included, must come out byte-identical on
//! every target: the snapshot is written natively and compared natively and in wasm32.
//!
//! The expected numbers of this file are the model's own output (not hand-worked: that is what
//! `golden_plans` does); its job is to prove that the site and the CLI agree to the last digit.
//! After an intended model change, regenerate natively with `GPUFARE_UPDATE_GOLDEN=1 cargo test`.

// Regenerating the snapshot writes a file; the library itself does no I/O (core/clippy.toml).
#![allow(clippy::disallowed_methods)]

use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::trace::{AttachedTrace, parse_trace};
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::{plan, plan_with_traces};
use gpufare_core::task::document::parse_task;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const TASK: &str = include_str!("../../tests/golden/snapshot-task.json");
const SNAPSHOT: &str = include_str!("../../tests/golden/plan-snapshot.json");
const TRACE_SNAPSHOT: &str = include_str!("../../tests/golden/plan-trace-snapshot.json");
const TRACE: &str =
    include_str!("../../tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json");

fn render() -> String {
    let task = parse_task(TASK).unwrap();
    let settings = PlanSettings {
        seed: 42,
        trials: 2000,
        ..PlanSettings::default()
    };
    let mut text =
        serde_json::to_string_pretty(&plan(&task, default_catalog(), &settings).unwrap()).unwrap();
    text.push('\n');
    text
}

/// A spot offer with a trace attached, its on-demand twin, and a task with a deadline: every
/// policy by Monte Carlo and by replay, byte for byte on every target.
fn render_with_trace() -> String {
    let mut task = parse_task(include_str!("../../examples/sd_lora.json")).unwrap();
    task.deadline_hours = Some(40.0);
    task.deadline_penalty = Some(rust_decimal::Decimal::from(500));
    let catalog = Catalog {
        format_version: 1,
        offers: default_catalog()
            .offers
            .iter()
            .filter(|o| o.id.starts_with("aws-use1-g5xl-"))
            .cloned()
            .collect(),
    };
    let traces = [AttachedTrace {
        offer_id: "aws-use1-g5xl-spot".to_owned(),
        trace: parse_trace("aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json", TRACE).unwrap(),
    }];
    let settings = PlanSettings {
        seed: 42,
        trials: 500,
        ..PlanSettings::default()
    };
    let plan = plan_with_traces(&task, &catalog, &traces, &settings).unwrap();
    let mut text = serde_json::to_string_pretty(&plan).unwrap();
    text.push('\n');
    text
}

/// Compares `text` with the checked-in `expected` (or rewrites `file` natively when asked).
fn check(text: &str, expected: &str, file: &str) {
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("GPUFARE_UPDATE_GOLDEN").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden")
            .join(file);
        std::fs::write(path, text).unwrap();
        return;
    }
    if text != expected {
        let line = text
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "plan differs from tests/golden/{file} at line {}:\n  got:  {:?}\n  want: {:?}",
            line + 1,
            text.lines().nth(line),
            expected.lines().nth(line)
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_plan_snapshot_is_identical_on_this_target() {
    check(&render(), SNAPSHOT, "plan-snapshot.json");
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_plan_with_a_trace_and_every_policy_is_identical_on_this_target() {
    check(
        &render_with_trace(),
        TRACE_SNAPSHOT,
        "plan-trace-snapshot.json",
    );
}
