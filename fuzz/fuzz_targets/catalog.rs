//! A catalog file in every form gpufare reads: its JSON, its CSV and SkyPilot's vms.csv; the
//! first byte picks the file name the format is detected from.
#![no_main]

use gpufare_core::offers::import::read_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;
use gpufare_fuzz::{quick, text};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 4] = [
    "catalog.json",
    "catalog.csv",
    "aws-vms.csv",
    "runpod_vms.csv",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(pick) % NAMES.len()];
    if let Ok(imported) = read_catalog(name, &text(rest), "2026-12-05") {
        let task = parse_task(include_str!("../../examples/sd_lora.json")).unwrap();
        let _ = plan(&task, &imported.catalog, &quick(PlanSettings::default()));
    }
});
