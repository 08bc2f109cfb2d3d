//! A task file: parsed, validated and priced.
#![no_main]

use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;
use gpufare_fuzz::{quick, small_catalog, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(task) = parse_task(&text(data)) {
        let _ = plan(&task, &small_catalog(), &quick(PlanSettings::default()));
    }
});
