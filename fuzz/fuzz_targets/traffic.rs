//! A traffic curve (a CSV of requests per second by hour): parsed, validated, and summarised as
//! the serving model reads it.
#![no_main]

use gpufare_core::task::traffic::parse_traffic_csv;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = parse_traffic_csv("fuzz", &text(data)) {
        assert!(t.validate().is_ok(), "a parsed curve is valid");
        assert!(t.mean_rps() <= t.peak_rps() && t.mean_rps().is_finite());
    }
});
