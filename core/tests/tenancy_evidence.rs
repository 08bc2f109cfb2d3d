//! The shared side reproduces the published figures it rests on (issue 32), each read from the
//! tables copied into `core/data` with their public sources:
//! - Tally (ASPLOS 2025; tally-project/tally-bench @ aaa359a): training next to a half-loaded
//!   inference server on an A100 ran 1.96x slower under time slicing and 1.16x under MPS (medians
//!   of 12 pairs);
//! - Alibaba's 2023 GPU-sharing cluster (alibaba/clusterdata, openb @ 7a6c496): fractional-GPU
//!   pods waited P50 2 s, P90 487 s, P95 1,428 s (Kaplan-Meier);
//! - NVIDIA's MIG user guide: a 1g slice of an A100 has 14 of the card's 108 SMs;
//! - HAMi's own benchmark: a memory-capped container alone costs 1-3 %.
//!
//! and the model's constants are the ones `core/data/derive_tenancy.py` fitted.

use gpufare_core::hardware::mig::find_mig;
use gpufare_core::offers::queue::{PoolKind, Queue, QueueSource};
use gpufare_core::offers::tenancy::Tenancy;

fn rows(text: &str) -> Vec<csv::StringRecord> {
    csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a well-formed row"))
        .collect()
}

fn fit(name: &str) -> f64 {
    let text = include_str!("../data/tenancy-fit.csv");
    rows(text)
        .iter()
        .find(|r| &r[0] == name)
        .unwrap_or_else(|| panic!("{name} is fitted"))[1]
        .parse()
        .expect("a number")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn the_constants_are_the_fitted_ones() {
    for (kind, name) in [
        (PoolKind::Fractional, "fractional"),
        (PoolKind::Whole, "whole"),
        (PoolKind::Multi, "multi"),
    ] {
        let (p0, median_h, sigma) = kind.default_queue();
        assert_eq!(p0, fit(&format!("queue.{name}.p0")), "{name}");
        assert!((median_h * 3600.0 - fit(&format!("queue.{name}.median_s"))).abs() < 1e-9);
        assert_eq!(sigma, fit(&format!("queue.{name}.sigma")), "{name}");
    }
    for t in [
        Tenancy::TimeSliced,
        Tenancy::Mps,
        Tenancy::Vgpu,
        Tenancy::MemCappedContainer,
    ] {
        let s = t.sharing().expect("work-conserving");
        let id = t.id();
        assert_eq!(s.gamma, fit(&format!("sharing.{id}.gamma")), "{id}");
        assert_eq!(s.sigma, fit(&format!("sharing.{id}.sigma")), "{id}");
        assert_eq!(s.overhead, fit(&format!("sharing.{id}.overhead")), "{id}");
        assert_eq!(s.solo_cost, fit(&format!("sharing.{id}.solo_cost")), "{id}");
    }
    for t in [Tenancy::Dedicated, Tenancy::Mig, Tenancy::MarketplaceHost] {
        assert!(t.sharing().is_none(), "{t:?} is partitioned or whole");
    }
}

#[test]
fn tallys_training_slowdowns_are_reproduced() {
    let pairs = rows(include_str!("../data/tally-a100-pairs.csv"));
    assert_eq!(pairs.len(), 12);
    for (tenancy, column, published) in [(Tenancy::TimeSliced, 2, 1.96), (Tenancy::Mps, 4, 1.16)] {
        let measured = median(pairs.iter().map(|r| r[column].parse().unwrap()).collect());
        assert!(
            (measured - published).abs() < 0.01,
            "{tenancy:?}: {measured}"
        );
        // The training job's nominal share is half the card; the neighbour is half loaded.
        let s = tenancy.sharing().unwrap();
        let model = 1.0 / s.speed(0.5, 0.5, false);
        assert!(
            (model / measured - 1.0).abs() < 0.10,
            "{tenancy:?}: model {model} vs Tally {measured}"
        );
        // The fixed fraction-and-factor model said 2 x the old median: too slow by far.
        let fixed = 2.0 * tenancy.default_slowdown().median;
        assert!(fixed > measured * 1.15, "{tenancy:?}: {fixed}");
        // Against the nominal share, the median slowdown is now below 1 next to a light
        // neighbour (the tenant gets more than its half), and exactly the cautious default with
        // the neighbours always busy.
        assert!(s.slowdown(0.5, 0.5, false).median < 1.0 || tenancy == Tenancy::TimeSliced);
        assert_eq!(
            s.slowdown(0.5, 1.0, false).median,
            tenancy.default_slowdown().median
        );
        // A capped share never gets more than its cap.
        assert!(s.speed(0.5, 0.0, true) <= 0.5);
    }
}

#[test]
fn openbs_fractional_pod_waits_are_reproduced() {
    let table = rows(include_str!("../data/tenancy/openb2023-pod-waits.csv"));
    let header = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(include_str!("../data/tenancy/openb2023-pod-waits.csv").as_bytes())
        .headers()
        .unwrap()
        .clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let row = table
        .iter()
        .find(|r| r[0].starts_with("1 GPU, shared"))
        .expect("the fractional-GPU row");
    let (p0, m, s) = PoolKind::Fractional.default_queue();
    let q = Queue::log_normal(p0, m, s, QueueSource::Offer);
    for (p, name) in [(0.5, "km_p50_s"), (0.9, "km_p90_s"), (0.95, "km_p95_s")] {
        let observed: f64 = row[col(name)].parse().unwrap();
        let fitted = q.quantile_hours(p) * 3600.0;
        let ratio = fitted / observed;
        assert!(
            (1.0 / 1.5..=1.5).contains(&ratio),
            "P{}: fitted {fitted:.0} s vs observed {observed} s",
            p * 100.0
        );
    }
    // At once, or a long while: every fitted pool's median is under a tenth of its mean, where
    // an exponential's is 0.69 of it.
    for kind in [PoolKind::Fractional, PoolKind::Whole, PoolKind::Multi] {
        let (p0, m, s) = kind.default_queue();
        let q = Queue::log_normal(p0, m, s, QueueSource::Offer);
        assert!(q.quantile_hours(0.5) / q.mean_hours() <= 0.1, "{kind:?}");
    }
}

#[test]
fn a_1g_slice_of_an_a100_has_14_of_108_sms() {
    for gpu in ["A100-40GB", "A100-80GB"] {
        let name = if gpu == "A100-40GB" {
            "1g.5gb"
        } else {
            "1g.10gb"
        };
        let m = find_mig(gpu, name).expect("a known profile");
        assert!((m.compute_share() - 14.0 / 108.0).abs() < 1e-6, "{gpu}");
    }
}

#[test]
fn a_memory_capped_container_alone_costs_at_most_five_percent() {
    let s = Tenancy::MemCappedContainer.sharing().unwrap();
    // Alone (no neighbour load) on a nominal share of a third: the whole card, less HAMi's cost.
    let speed = s.speed(1.0 / 3.0, 0.0, false);
    assert!((0.95..=1.0).contains(&speed), "{speed}");
}

#[test]
fn a_queue_trace_in_the_alibaba_columns_is_fitted() {
    use gpufare_core::offers::queue_trace::parse_queue_trace;
    let t = parse_queue_trace(
        "pool-waits.csv",
        include_str!("../../tests/fixtures/queues/pool-waits.csv"),
    )
    .expect("the fixture parses");
    // Generated with half the jobs starting at once, the rest log-normal (100 s, sigma 1.9).
    assert_eq!(t.starts + t.unstarted, 200);
    assert!(t.unstarted > 0);
    assert!((0.4..0.6).contains(&t.fitted.p0), "{}", t.fitted.p0);
    let median_s = t.fitted.median_hours * 3600.0;
    assert!((50.0..200.0).contains(&median_s), "{median_s}");
    assert!((1.5..2.3).contains(&t.fitted.sigma), "{}", t.fitted.sigma);
    let q = Queue::from_trace(&t);
    assert_eq!(q.source, QueueSource::Trace);
    assert!(q.quantile_hours(0.5) < 0.1 * q.mean_hours());
}
