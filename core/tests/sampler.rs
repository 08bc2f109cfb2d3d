//! The Monte Carlo's sampler changed twice (issue 34, item 2), and each time the sampled figures
//! moved while their distributions must not:
//!
//! - every offer of a plan draws its trials from one stream label ([`OFFER_STREAMS`], common
//!   random numbers) instead of one label per offer id, so offers with the same figures share
//!   their trials and big catalogs of copies are simulated once;
//! - preemptions and gaps are drawn by a ziggurat ([`Exponentials::Ziggurat`]) instead of as
//!   -ln(u) ([`Exponentials::Inversion`]), and the queues' uniforms are drawn as uniforms.
//!
//! For a corpus of jobs (spot rates, gaps, checkpoints, notices, protection, queues, runs,
//! policies), the old sampler and the new one, each with its own seed, give completion hours and
//! billed hours (the cost of a metered offer is its price times them, so their law is the cost's)
//! whose two-sample Kolmogorov–Smirnov distance stays under the critical value at α = 10⁻⁵. The
//! same check rejects an often-preempted job whose rate is a fifth higher, so it can fail.

#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::numbers::rng::Exponentials;
use gpufare_core::offers::queue::Queue;
use gpufare_core::offers::tenancy::{Slowdown, SlowdownSource};
use gpufare_core::plan::job::Rule;
use gpufare_core::plan::time::{
    Draws, FallbackPlan, OFFER_STREAMS, Simulation, TimeInputs, simulate_rules,
};
use gpufare_core::task::document::Checkpoint;

const TRIALS: usize = 4000;

/// The two-sample Kolmogorov–Smirnov statistic: the largest gap between the empirical CDFs.
fn ks(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0_f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    d
}

/// The critical distance at level `alpha` for samples of `n` and `m` (the asymptotic form,
/// c(α) √((n + m) / (n m)) with c(α) = √(−ln(α / 2) / 2)).
fn critical(alpha: f64, n: usize, m: usize) -> f64 {
    let c = (-(alpha / 2.0).ln() / 2.0).sqrt();
    c * ((n + m) as f64 / (n * m) as f64).sqrt()
}

fn billed(sim: &Simulation) -> Vec<f64> {
    sim.running_hours
        .iter()
        .zip(&sim.fallback_hours)
        .map(|(a, b)| a + b)
        .collect()
}

fn inputs(
    run_hours: f64,
    runs: u32,
    rate: f64,
    checkpoint: Option<(f64, f64)>,
    saves: bool,
    queue: Queue,
    protection_hours: f64,
) -> TimeInputs {
    TimeInputs {
        run_hours,
        runs,
        slowdown: Slowdown {
            median: 1.1,
            p99: 1.6,
            source: SlowdownSource::Assumed,
        },
        interruptions_per_hour: rate,
        gap_mean_hours: 0.3,
        saves_on_notice: saves,
        checkpoint: checkpoint.map(|(interval_hours, restart_overhead_hours)| Checkpoint {
            interval_hours,
            restart_overhead_hours,
            save_minutes: None,
        }),
        queue,
        queue_every_run: true,
        protection_hours,
    }
}

/// The corpus: each job with the rules a plan walks for it and the fallback they move to.
fn corpus() -> Vec<(&'static str, TimeInputs)> {
    let q = Queue::exponential(0.6, 0.4);
    vec![
        (
            "checkpointed spot",
            inputs(12.0, 1, 0.08, Some((1.0, 0.1)), false, Queue::none(), 0.0),
        ),
        (
            "unchecked spot",
            inputs(6.0, 1, 0.05, None, false, Queue::none(), 0.0),
        ),
        (
            "often preempted",
            inputs(20.0, 1, 0.6, Some((0.5, 0.05)), false, Queue::none(), 0.0),
        ),
        (
            "saved on notice",
            inputs(15.0, 1, 0.2, Some((2.0, 0.1)), true, Queue::none(), 0.0),
        ),
        (
            "queued, runs",
            inputs(3.0, 5, 0.1, Some((1.0, 0.1)), false, q, 0.0),
        ),
        (
            "protected",
            inputs(8.0, 2, 0.15, Some((1.0, 0.1)), false, q, 1.0),
        ),
        ("many runs", inputs(0.5, 64, 0.05, None, false, q, 0.0)),
    ]
}

fn rules() -> Vec<Rule> {
    vec![
        Rule::Stay,
        Rule::AfterPreemptions(1),
        Rule::AfterPreemptions(4),
        Rule::Deadline(30.0),
    ]
}

fn fallback() -> FallbackPlan {
    FallbackPlan {
        run_hours: 13.0,
        queue: Queue::none(),
    }
}

/// Every rule of `job` simulated under two samplers: seed 11 with `old_label` and `old`
/// exponentials, seed 12 with the shared label and the ziggurat.
fn old_and_new(
    job: &TimeInputs,
    old_label: &str,
    old: Exponentials,
) -> Vec<(Rule, Simulation, Simulation)> {
    let old_draws = Draws::new(11, TRIALS, job.runs).drawing(old);
    let new_draws = Draws::new(12, TRIALS, job.runs);
    let rules = rules();
    let fb = fallback();
    let old = simulate_rules(job, &old_draws, 11, old_label, &rules, Some(&fb));
    let new = simulate_rules(job, &new_draws, 12, OFFER_STREAMS, &rules, Some(&fb));
    rules
        .into_iter()
        .zip(old)
        .zip(new)
        .map(|((r, o), n)| (r, o, n))
        .collect()
}

/// The corpus under both samplers: completion and billed hours the same in law, and not the
/// same trials.
fn same_laws(old_label: &str, old: Exponentials) {
    let limit = critical(1e-5, TRIALS, TRIALS);
    let mut worst = 0.0_f64;
    for (name, job) in corpus() {
        for (rule, old, new) in old_and_new(&job, old_label, old) {
            assert_eq!(old.wall_hours.len(), TRIALS);
            assert_eq!(new.wall_hours.len(), TRIALS);
            for (what, a, b) in [
                (
                    "completion hours",
                    old.wall_hours.clone(),
                    new.wall_hours.clone(),
                ),
                ("billed hours", billed(&old), billed(&new)),
            ] {
                let d = ks(&a, &b);
                worst = worst.max(d);
                assert!(
                    d < limit,
                    "{name}, {rule:?}: the {what} differ in law (KS distance {d:.4}, critical {limit:.4})"
                );
            }
        }
    }
    // The corpus is not trivially identical: trials differ between the two samplers.
    assert!(worst > 0.0);
}

#[test]
fn the_shared_streams_draw_the_same_distributions_as_the_per_offer_ones() {
    same_laws("aws-use1-g5xl-spot", Exponentials::Ziggurat);
}

#[test]
fn the_ziggurat_draws_the_same_distributions_as_inversion() {
    same_laws(OFFER_STREAMS, Exponentials::Inversion);
}

/// The sampler before issue 34 as a whole: a label per offer and exponentials by inversion.
#[test]
fn the_sampler_draws_the_same_distributions_as_before_issue_34() {
    same_laws("aws-use1-g5xl-spot", Exponentials::Inversion);
}

#[test]
fn the_check_rejects_a_different_rate() {
    let limit = critical(1e-5, TRIALS, TRIALS);
    let job = corpus()[2].1;
    let faster = TimeInputs {
        interruptions_per_hour: job.interruptions_per_hour * 1.2,
        ..job
    };
    let draws = Draws::new(12, TRIALS, job.runs);
    let base = simulate_rules(
        &job,
        &Draws::new(11, TRIALS, 1),
        11,
        "a",
        &[Rule::Stay],
        None,
    );
    let more = simulate_rules(&faster, &draws, 12, OFFER_STREAMS, &[Rule::Stay], None);
    let d = ks(&base[0].wall_hours, &more[0].wall_hours);
    assert!(
        d > limit,
        "a 20 % higher rate went unnoticed (KS distance {d:.4}, critical {limit:.4})"
    );
}

#[test]
fn the_distance_is_the_textbook_one() {
    // Hand-worked: {1, 2, 3} against {2.5, 4}: after 2 the CDFs are 2/3 and 0.
    assert!((ks(&[1.0, 2.0, 3.0], &[2.5, 4.0]) - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(ks(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
    // c(0.05) is the tabled 1.358.
    assert!((critical(0.05, 1, 1) / 2f64.sqrt() - 1.358).abs() < 1e-3);
}

/// With one stream label for every offer, an offer's sampled figures depend on its figures, not
/// on its id or its neighbours: copies of a spot offer under other ids and prices (the rows of
/// one GPU in many zones) get the very trials of the original, and the original priced in a
/// catalog of its own and its fallback reads the same as in the whole catalog. This is what lets
/// a plan simulate such copies once.
#[test]
fn copies_of_an_offer_share_its_trials_whatever_the_catalog() {
    use gpufare_core::offers::catalog::Catalog;
    use gpufare_core::offers::default::default_catalog;
    use gpufare_core::plan::context::Context;
    use gpufare_core::plan::plan;
    use gpufare_core::plan::policy::fallback_for;
    use gpufare_core::plan::settings::PlanSettings;
    use gpufare_core::task::document::parse_task;
    use rust_decimal::Decimal;

    let task = parse_task(include_str!("../../tests/golden/snapshot-task.json")).unwrap();
    let settings = PlanSettings {
        seed: 5,
        trials: 1000,
        ..PlanSettings::default()
    };
    let base = default_catalog();
    let spot = base
        .offers
        .iter()
        .find(|o| o.id == "aws-use1-g5xl-spot")
        .unwrap()
        .clone();
    let mut whole = base.clone();
    for (i, factor) in [(1, 80), (2, 125)] {
        let mut copy = spot.clone();
        copy.id = format!("{}-zone-{i}", spot.id);
        copy.price = (copy.price * Decimal::new(factor, 2)).round_dp(4);
        whole.offers.push(copy);
    }
    let priced = plan(&task, &whole, &settings).unwrap();
    let option = |p: &gpufare_core::plan::PlanResult, id: &str| {
        p.options.iter().find(|o| o.offer_id == id).unwrap().clone()
    };
    let original = option(&priced, &spot.id);
    assert!(original.feasible && original.risk.is_some());
    let sampled = |o: &gpufare_core::plan::option::OptionResult| {
        let risk = o.risk.as_ref().unwrap();
        let cdfs: Vec<Vec<f64>> = risk
            .policies
            .iter()
            .map(|p| p.model.cdf_hours.clone())
            .collect();
        (o.hours_p50, o.hours_p90, o.deadline_miss_probability, cdfs)
    };
    for i in [1, 2] {
        let copy = option(&priced, &format!("{}-zone-{i}", spot.id));
        assert_eq!(sampled(&copy), sampled(&original), "copy {i}");
        // Staying on the spot offer is priced at the copy's own price.
        let staying = |o: &gpufare_core::plan::option::OptionResult| {
            let risk = o.risk.as_ref().unwrap();
            let p = risk.policies.iter().find(|p| p.id == "spot_only").unwrap();
            p.model.total_expected
        };
        assert_ne!(
            staying(&copy),
            staying(&original),
            "copy {i} kept its price"
        );
    }
    let ctx = Context::new(&task, &settings).with_evidence(&base.offers, &[]);
    let twin = fallback_for(&ctx, &spot).unwrap().clone();
    let alone = Catalog {
        format_version: base.format_version,
        offers: vec![twin, spot.clone()],
    };
    let alone = plan(&task, &alone, &settings).unwrap();
    assert_eq!(sampled(&option(&alone, &spot.id)), sampled(&original));
}
