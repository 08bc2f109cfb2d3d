//! One hash of many varied plans, for changes that must not change any result (speed work,
//! refactors): run it before and after, and the two lines must match.
//!
//! `cargo run --release -p gpufare-core --example plan_digest [PLANS]` (default 600). Each plan
//! varies the snapshot task (work, runs, memory, GPUs, deadline, checkpoints, value of time,
//! currency, spot policy), the seed and the Monte Carlo trials (1 to 10,000); the whole JSON of
//! every plan goes into the hash, refusals included.
// A developer's tool beside the library, not part of it: it may read its command line.
#![allow(clippy::disallowed_methods)]

#[path = "common/corpus.rs"]
mod corpus;

use gpufare_core::numbers::rng::fnv1a;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::task::document::parse_task;

fn main() {
    let plans: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(600);
    let base = corpus::base_task();
    let catalog = default_catalog();
    let mut digest = 0xcbf2_9ce4_8422_2325_u64;
    let mut refused = 0;
    for i in 0..plans {
        let (task, settings) = corpus::varied(&base, i);
        let text = serde_json::to_string(&task).unwrap();
        let line = match parse_task(&text) {
            Ok(t) => match plan(&t, catalog, &settings) {
                Ok(result) => serde_json::to_string(&result).unwrap(),
                Err(e) => format!("plan error: {e}"),
            },
            Err(e) => {
                refused += 1;
                format!("task error: {e}")
            }
        };
        digest = (digest ^ fnv1a(&line)).wrapping_mul(0x0100_0000_01b3);
    }
    println!("{plans} plans ({refused} tasks refused): digest {digest:016x}");
}
