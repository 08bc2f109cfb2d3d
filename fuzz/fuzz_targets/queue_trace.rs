//! A queue trace (a CSV of waits, or of creation and start timestamps): parsed, turned into the
//! queue the plan draws from, and summarised as a plan shows it.
#![no_main]

use gpufare_core::offers::queue::Queue;
use gpufare_core::offers::queue_trace::parse_queue_trace;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = parse_queue_trace("fuzz", &text(data)) {
        assert!(trace.validate().is_ok(), "a parsed trace is valid");
        let q = Queue::from_trace(&trace);
        let s = q.summary();
        assert!(s.p50 <= s.p90 && s.p90 <= s.p99 && s.mean.is_finite());
    }
});
