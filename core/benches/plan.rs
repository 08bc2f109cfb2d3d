//! How long pricing takes: the default catalog with 10,000 Monte Carlo trials per offer.
//!
//! `cargo bench -p gpufare-core --bench plan` (figures in the README's performance section).

use criterion::{Criterion, criterion_group, criterion_main};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::parse_task;

fn bench(c: &mut Criterion) {
    let task = parse_task(include_str!("../../tests/golden/snapshot-task.json")).unwrap();
    let catalog = default_catalog();
    let settings = PlanSettings {
        seed: 42,
        trials: 10_000,
        ..PlanSettings::default()
    };
    let mut group = c.benchmark_group("plan");
    group.sample_size(20);
    group.bench_function(
        format!(
            "default catalog ({} offers) x 10,000 trials",
            catalog.offers.len()
        ),
        |b| b.iter(|| plan(std::hint::black_box(&task), catalog, &settings).unwrap()),
    );
    let short = PlanSettings {
        trials: 1,
        ..settings.clone()
    };
    group.bench_function("closed forms only (1 trial), for comparison", |b| {
        b.iter(|| plan(std::hint::black_box(&task), catalog, &short).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
