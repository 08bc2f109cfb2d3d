//! What a user types into a number field or `--hours`.
#![no_main]

use gpufare_core::numbers::input::parse_decimal;
use gpufare_core::offers::billing::parse_run_hours;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;
use rust_decimal::Decimal;

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let _ = parse_decimal(&input, Decimal::from(1_000_000_000i64));
    let _ = parse_run_hours(&input);
});
