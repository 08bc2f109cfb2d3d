//! A whole plan over the default catalog, Monte Carlo included, must come out byte-identical on
//! every target: the snapshot is written natively and compared natively and in wasm32.
//!
//! The expected numbers of this file are the model's own output (not hand-worked: that is what
//! `golden_plans` does); its job is to prove that the site and the CLI agree to the last digit.
//! After an intended model change, regenerate natively with `GPUFARE_UPDATE_GOLDEN=1 cargo test`.

// Regenerating the snapshot writes a file; the library itself does no I/O (core/clippy.toml).
#![allow(clippy::disallowed_methods)]

use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const TASK: &str = include_str!("../../tests/golden/snapshot-task.json");
const SNAPSHOT: &str = include_str!("../../tests/golden/plan-snapshot.json");

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

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_plan_snapshot_is_identical_on_this_target() {
    let text = render();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("GPUFARE_UPDATE_GOLDEN").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/plan-snapshot.json");
        std::fs::write(path, &text).unwrap();
        return;
    }
    if text != SNAPSHOT {
        let line = text
            .lines()
            .zip(SNAPSHOT.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "plan differs from tests/golden/plan-snapshot.json at line {}:\n  got:  {:?}\n  want: {:?}",
            line + 1,
            text.lines().nth(line),
            SNAPSHOT.lines().nth(line)
        );
    }
}
