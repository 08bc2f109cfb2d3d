//! How long a fleet report takes: 1,000 and 10,000 nodes made from the test profiles (each
//! fixture in turn under its own host name), and reading them back from JSON lines.
//!
//! `cargo bench -p gpufare-core --bench fleet` (figures in core/README.md, "Fleets").

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gpufare_core::fleet::{FleetNode, Rules, fleet_to_jsonl, parse_fleet, report};
use gpufare_core::profile::parse_profile;

const FIXTURES: [&str; 5] = [
    include_str!("../../tests/profiles/capped-a100-pcie-gen3.json"),
    include_str!("../../tests/profiles/dedicated-h100.json"),
    include_str!("../../tests/profiles/hami-4090-neighbours.json"),
    include_str!("../../tests/profiles/mig-a100-1g10gb.json"),
    include_str!("../../tests/profiles/vgpu-v100d-8c.json"),
];

fn fleet(n: usize) -> Vec<FleetNode> {
    let templates: Vec<_> = FIXTURES.iter().map(|t| parse_profile(t).unwrap()).collect();
    (0..n)
        .map(|i| {
            let mut profile = templates[i % templates.len()].clone();
            profile.host.hostname = Some(format!("node-{i:05}"));
            FleetNode {
                source: format!("node-{i:05}.json"),
                profile,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rules = Rules::default();
    let mut group = c.benchmark_group("fleet");
    group.sample_size(10);
    for n in [1_000, 10_000] {
        let nodes = fleet(n);
        group.bench_with_input(BenchmarkId::new("report", n), &nodes, |b, nodes| {
            b.iter(|| report(std::hint::black_box(nodes), &rules))
        });
        let text = fleet_to_jsonl(&nodes);
        group.bench_with_input(BenchmarkId::new("parse_fleet", n), &text, |b, text| {
            b.iter(|| parse_fleet("fleet.jsonl", std::hint::black_box(text)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
