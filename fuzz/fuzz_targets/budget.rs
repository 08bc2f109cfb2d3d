//! A budget file, as `--diff` and `--from-budget` read it.
#![no_main]

use gpufare_core::export::budget::parse_budget;
use gpufare_core::export::diff::{diff, diff_text};
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(budget) = parse_budget(&text(data)) {
        let d = diff(&budget, &budget);
        let _ = diff_text(&d, budget.currency);
    }
});
