//! How long pricing takes: the golden snapshot task against the default catalog, seed 42, with
//! 10,000 Monte Carlo trials per offer, with the site's default trial count, and with closed
//! forms only (1 trial).
//!
//! `cargo bench -p gpufare-core --bench plan` (add `--features parallel` for the CLI's
//! multi-threaded build). The benchmark ids are the case names of `bench/wasm-plan`, which
//! prices the same plans compiled to wasm; `cargo xtask bench` sets the two side by side and
//! writes the README's performance section.

use criterion::{Criterion, criterion_group, criterion_main};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::{DEFAULT_TRIALS, PlanSettings};
use gpufare_core::task::document::parse_task;

/// Case name (as in `bench/wasm-plan`) and Monte Carlo trials per offer.
const CASES: [(&str, u32); 3] = [
    ("trials-10000", 10_000),
    ("trials-default", DEFAULT_TRIALS),
    ("closed-forms", 1),
];

fn bench(c: &mut Criterion) {
    let task = parse_task(include_str!("../../tests/golden/snapshot-task.json")).unwrap();
    let catalog = default_catalog();
    let mut group = c.benchmark_group("plan");
    group.sample_size(20);
    for (name, trials) in CASES {
        let settings = PlanSettings {
            seed: 42,
            trials,
            ..PlanSettings::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| plan(std::hint::black_box(&task), catalog, &settings).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
