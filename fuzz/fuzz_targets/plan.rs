//! Pricing on parsed input: a task, then a catalog, separated by a line of `---`; a trace may
//! follow another `---` and is attached to the catalog's first interruptible offer.
#![no_main]

use gpufare_core::offers::catalog::{Catalog, parse_catalog_json};
use gpufare_core::offers::csv::parse_catalog_csv;
use gpufare_core::offers::trace::{AttachedTrace, parse_trace};
use gpufare_core::plan::plan_with_traces;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;
use gpufare_fuzz::{quick, small_catalog, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let mut parts = input.split("\n---\n");
    let Some(Ok(task)) = parts.next().map(parse_task) else {
        return;
    };
    let catalog: Catalog = match parts.next() {
        None => small_catalog(),
        Some(c) => match parse_catalog_json(c).or_else(|_| parse_catalog_csv(c)) {
            Ok(c) => c,
            Err(_) => return,
        },
    };
    let mut traces = Vec::new();
    if let Some(Ok(trace)) = parts.next().map(|t| parse_trace("fuzz", t))
        && let Some(o) = catalog.offers.iter().find(|o| o.interruptions.interrupts())
    {
        traces.push(AttachedTrace {
            offer_id: o.id.clone(),
            trace,
        });
    }
    let _ = plan_with_traces(&task, &catalog, &traces, &quick(PlanSettings::default()));
});
