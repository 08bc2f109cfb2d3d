//! A preemption trace (the dataset's JSON or a timestamp CSV): parsed and summarised.
#![no_main]

use gpufare_core::offers::trace::parse_trace;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = parse_trace("fuzz", &text(data)) {
        let _ = trace.stats();
    }
});
