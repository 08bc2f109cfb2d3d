//! A fleet file: read as JSON lines, reported under the default rules, and rendered every way.
#![no_main]

use gpufare_core::fleet::{
    Rules, fleet_factors, fleet_to_jsonl, parse_fleet, prometheus_text, report, report_markdown,
    report_table,
};
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let merged = parse_fleet("fleet.jsonl", &text(data));
    let r = report(&merged.nodes, &Rules::default());
    let _ = report_table(&r);
    let _ = report_markdown(&r);
    let _ = prometheus_text(&r, &merged.nodes);
    let _ = fleet_factors(&r);
    let _ = fleet_to_jsonl(&merged.nodes);
});
