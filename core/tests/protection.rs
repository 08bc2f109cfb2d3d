//! Protection periods: no preemption in an instance's first P hours after each start. The Monte
//! Carlo against the closed forms (several parameter sets, each within its sampling error), the
//! trace replay and the policies around a preemption inside the window, and the rule that an
//! offer without protection, or one that holds its machine between runs, is priced as before.

use gpufare_core::numbers::rng::Stream;
use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::queue::{Queue, QueueSource};
use gpufare_core::offers::tenancy::{Slowdown, SlowdownSource};
use gpufare_core::offers::trace::parse_trace;
use gpufare_core::plan::job::{Capacity, Poisson, Rule};
use gpufare_core::plan::plan;
use gpufare_core::plan::replay::replay;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::time::{
    Draws, FLUID_PREEMPTIONS, FallbackPlan, Simulation, TimeInputs, expect, simulate,
    simulate_policy,
};
use gpufare_core::task::document::{Checkpoint, parse_task};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn slowdown(median: f64, p99: f64) -> Slowdown {
    Slowdown {
        median,
        p99,
        source: SlowdownSource::Assumed,
    }
}

/// A metered job of `runs` runs of `work` hours at `rate` preemptions per running hour, with
/// `protection` hours after each start.
fn job(
    work: f64,
    runs: u32,
    rate: f64,
    protection: f64,
    checkpoint: Option<(f64, f64)>,
) -> TimeInputs {
    TimeInputs {
        interruptions_per_hour: rate,
        protection_hours: protection,
        checkpoint: checkpoint.map(|(interval_hours, restart_overhead_hours)| Checkpoint {
            interval_hours,
            restart_overhead_hours,
            save_minutes: None,
        }),
        queue_every_run: true,
        ..TimeInputs::plain(work, runs, slowdown(1.0, 1.0))
    }
}

/// Mean and standard error of the mean.
fn mean_se(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count() as f64;
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_monte_carlo_meets_the_closed_form_within_its_sampling_error() {
    let gapped = |mut i: TimeInputs, gap: f64| {
        i.gap_mean_hours = gap;
        i
    };
    let cases = [
        // λ = 0.5, hourly checkpoints, 0.1 h restarts, 1 h protection: the golden scenario.
        gapped(job(10.0, 2, 0.5, 1.0, Some((1.0, 0.1))), 2.0),
        // Protection outlasting a restarted segment: it carries over three checkpoints.
        TimeInputs {
            slowdown: slowdown(1.15, 1.7),
            ..gapped(job(10.0, 2, 0.433, 1.0, Some((0.25, 0.05))), 1.83)
        },
        // Longer protection than segments, a queue with a share of starts that find capacity.
        TimeInputs {
            slowdown: slowdown(1.03, 1.08),
            queue: Queue::exponential(0.3, 0.4),
            ..gapped(job(7.3, 3, 0.8, 2.0, Some((0.5, 0.1))), 0.8)
        },
        // Protection shorter than the restart.
        gapped(job(6.0, 1, 0.7, 0.05, Some((0.4, 0.2))), 0.5),
        // Without checkpoints: F = e^{λ(W−P)} − 1.
        job(4.0, 2, 0.5, 1.0, None),
        // Many preemptions, walked event by event.
        job(60.0, 1, 4.0, 0.5, Some((0.1, 0.02))),
        // A notice that saves the work, protection longer and shorter than the restart.
        TimeInputs {
            saves_on_notice: true,
            ..gapped(job(10.0, 2, 0.5, 1.0, Some((1.0, 0.1))), 1.0)
        },
        TimeInputs {
            saves_on_notice: true,
            ..job(5.0, 1, 0.8, 0.1, Some((1.0, 0.3)))
        },
        TimeInputs {
            saves_on_notice: true,
            ..job(30.0, 1, 1.5, 2.0, Some((1.0, 0.1)))
        },
    ];
    let trials = 20_000;
    for (k, case) in cases.iter().enumerate() {
        let e = expect(case);
        let draws = Draws::new(17, trials, case.runs);
        let sim = simulate(case, &draws, 17, &format!("case {k}"));
        let (wall, wall_se) = mean_se(sim.wall_hours.iter().copied());
        let (running, running_se) = mean_se(sim.running_hours.iter().copied());
        let (failures, failures_se) = mean_se(sim.interruptions.iter().map(|&n| f64::from(n)));
        // Four standard errors: a wrong formula by a few percent fails, sampling noise does not.
        for (what, mc, se, closed) in [
            ("wall", wall, wall_se, e.wall_hours()),
            ("running", running, running_se, e.running_hours),
            ("failures", failures, failures_se, e.interruptions),
        ] {
            assert!(
                (mc - closed).abs() <= 4.0 * se + 1e-9 * closed,
                "case {k} {what}: Monte Carlo {mc} ± {se} vs closed form {closed}"
            );
        }
        // Protection does something here: the same job unprotected runs longer.
        let bare = expect(&TimeInputs {
            protection_hours: 0.0,
            ..*case
        });
        assert!(bare.running_hours > e.running_hours * 1.001, "case {k}");
        assert!(bare.interruptions > e.interruptions, "case {k}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_job_past_the_event_bound_is_priced_with_its_protection() {
    // 2 runs x 2,000 h at 2 preemptions an hour, 0.3 h protected after each start: about 2,500
    // preemptions a run, priced per trial at the closed form for its slowdown.
    let long = TimeInputs {
        gap_mean_hours: 0.2,
        slowdown: slowdown(1.15, 1.7),
        ..job(2000.0, 2, 2.0, 0.3, Some((0.1, 0.01)))
    };
    let e = expect(&long);
    assert!(e.interruptions / 2.0 > FLUID_PREEMPTIONS);
    let draws = Draws::new(5, 2_000, long.runs);
    let sim = simulate(&long, &draws, 5, "long");
    let mean = Simulation::mean(&sim.wall_hours);
    assert!(
        (mean / e.wall_hours() - 1.0).abs() < 0.02,
        "{mean} vs {}",
        e.wall_hours()
    );
    let bare = expect(&TimeInputs {
        protection_hours: 0.0,
        ..long
    });
    assert!(bare.interruptions > 1.2 * e.interruptions);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_closed_forms_match_hand_arithmetic() {
    // Hourly checkpoints, 0.1 h restarts, λ = 0.5, P = 1 h, 10 h: the first segment runs under
    // the first instance's protection; every other one is first tried unprotected and retried on
    // instances protected for 1 of their 1.1 h.
    let e = expect(&job(10.0, 1, 0.5, 1.0, Some((1.0, 0.1))));
    let fail = 1.0 - (-0.5_f64).exp();
    let retry = 1.0 * 0.05_f64.exp() + 0.05_f64.exp_m1() / 0.5;
    let running = 1.0 + 9.0 * (fail / 0.5 + fail * retry);
    let failures = 9.0 * fail * 0.05_f64.exp();
    assert!(
        (e.running_hours - running).abs() < 1e-9,
        "{} vs {running}",
        e.running_hours
    );
    assert!((e.interruptions - failures).abs() < 1e-9);
    // Unchecked, 4 h, λ = 0.5, P = 1: F = e^{1.5} − 1, T = P·e^{1.5} + F/λ.
    let e = expect(&job(4.0, 1, 0.5, 1.0, None));
    let f = 1.5_f64.exp_m1();
    assert!((e.interruptions - f).abs() < 1e-9);
    assert!((e.running_hours - (1.5_f64.exp() + f / 0.5)).abs() < 1e-9);
    // A run no longer than its protection is never preempted.
    let e = expect(&job(0.8, 3, 5.0, 1.0, Some((0.25, 0.05))));
    assert!((e.running_hours - 2.4).abs() < 1e-12);
    assert_eq!(e.interruptions, 0.0);
    // A saving notice with P = 1 > r = 0.1: F = Σ_k P(Poisson(λ(W − P − 0.9k)) ≥ k + 1),
    // T = W + r·F; here W = 1.9 h, so one term, P(Poisson(0.45) ≥ 1) = 1 − e^{−0.45}.
    let e = expect(&TimeInputs {
        saves_on_notice: true,
        ..job(1.9, 1, 0.5, 1.0, Some((1.0, 0.1)))
    });
    let f = -(-0.45_f64).exp_m1();
    assert!((e.interruptions - f).abs() < 1e-12);
    assert!((e.running_hours - (1.9 + 0.1 * f)).abs() < 1e-12);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn no_protection_and_held_machines_price_as_without_the_field() {
    // Protection on an offer that holds its machine between runs is not used: every figure,
    // closed form and Monte Carlo, is the one without it, to the bit.
    for checkpoint in [None, Some((0.5, 0.1))] {
        let held = TimeInputs {
            queue_every_run: false,
            queue: Queue::log_normal(0.4, 0.1, 1.5, QueueSource::Offer),
            gap_mean_hours: 1.0,
            ..job(5.0, 3, 0.6, 2.0, checkpoint)
        };
        let without = TimeInputs {
            protection_hours: 0.0,
            ..held
        };
        assert_eq!(held.protection(), 0.0);
        assert_eq!(expect(&held), expect(&without));
        let draws = Draws::new(3, 500, 3);
        assert_eq!(
            simulate(&held, &draws, 3, "x"),
            simulate(&without, &draws, 3, "x")
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn more_protection_never_means_more_preemptions() {
    // Each instance lives longer, so fewer preemptions. Running hours need not fall with every
    // extra quarter hour (work done under protection past the last checkpoint is lost to the
    // first preemption after it: at λ = 0.8 with hourly checkpoints, 3.5 h of protection runs
    // longer than 3.25 h), but never exceed the unprotected run's.
    for (rate, checkpoint) in [
        (0.433, Some((0.25, 0.05))),
        (0.8, Some((1.0, 0.1))),
        (2.0, Some((0.5, 0.3))),
        (0.3, None),
    ] {
        let at = |p: f64| {
            expect(&TimeInputs {
                slowdown: slowdown(1.15, 1.7),
                ..job(12.0, 1, rate, p, checkpoint)
            })
        };
        let bare = at(0.0);
        let mut failures_before = bare.interruptions;
        for k in 1..=48 {
            let p = f64::from(k) * 0.25;
            let e = at(p);
            assert!(
                e.running_hours <= bare.running_hours + 1e-9,
                "{rate}, P = {p}"
            );
            assert!(
                e.interruptions <= failures_before + 1e-12,
                "{rate}, P = {p}"
            );
            failures_before = e.interruptions;
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn every_start_is_protected_and_the_clock_runs_after() {
    // The first window after each start is the protection plus an exponential exposure.
    let waits = [1.0; 1];
    let (mut sum, n) = (0.0, 20_000);
    for trial in 0..n {
        let mut c = Poisson::new(0.5, 1.0, 0.0, &waits, Stream::trial_of(7, trial)).protected(1.5);
        c.wait(0);
        let first = c.window();
        assert!(first > 1.5);
        c.run(first);
        c.gap();
        let second = c.window();
        assert!(second > 1.5);
        sum += second;
    }
    let mean = sum / f64::from(n as u32);
    assert!((mean - 3.5).abs() < 0.05, "{mean}");
}

fn trace(tick_s: u32, data: &[u32]) -> gpufare_core::offers::trace::Trace {
    let values: Vec<String> = data.iter().map(u32::to_string).collect();
    parse_trace(
        "hand.json",
        &format!(
            r#"{{"metadata": {{"gap_seconds": {tick_s}}}, "data": [{}]}}"#,
            values.join(",")
        ),
    )
    .unwrap()
}

/// (wall, billed, preemptions) of the replay from each tick.
fn starts(sim: &Simulation) -> Vec<(f64, f64, u32)> {
    let r = |x: f64| (x * 1e6).round() / 1e6;
    (0..sim.wall_hours.len())
        .map(|i| {
            (
                r(sim.wall_hours[i]),
                r(sim.running_hours[i]),
                sim.interruptions[i],
            )
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_replay_skips_a_preemption_inside_the_protection() {
    // Hourly ticks: running 1 h, a 1 h gap, running 8 h (then wraps).
    let t = trace(3600, &[1, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    let four = job(4.0, 1, 0.0, 0.0, Some((1.0, 0.1)));
    // Without protection, from tick 0: 1 h of work saved, the gap, a restart, 3 h more.
    let bare = replay(&t, &four, Rule::Stay, None);
    assert_eq!(starts(&bare)[0], (5.1, 4.1, 1));
    // With 2.5 h: the preemption at 1 h falls inside the window, the instance runs on through
    // the gap (the trace has capacity again when the protection ends): 4 h straight.
    let shielded = TimeInputs {
        protection_hours: 2.5,
        ..four
    };
    assert_eq!(
        starts(&replay(&t, &shielded, Rule::Stay, None))[0],
        (4.0, 4.0, 0)
    );
    // With 0.5 h the preemption comes after the window: as without protection.
    let short = TimeInputs {
        protection_hours: 0.5,
        ..four
    };
    assert_eq!(
        starts(&replay(&t, &short, Rule::Stay, None))[0],
        (5.1, 4.1, 1)
    );
    // With 1.5 h the instance outlives the preemption but not the gap: it is reclaimed when the
    // protection ends, in the gap (1.5 h of work, 1 saved), waits the last half hour, restarts.
    let half = TimeInputs {
        protection_hours: 1.5,
        ..four
    };
    let sim = replay(&t, &half, Rule::Stay, None);
    assert_eq!(starts(&sim)[0], (1.5 + 0.5 + 0.1 + 3.0, 1.5 + 0.1 + 3.0, 1));
    // A gap of 2 h outlasts 2.5 h of protection the same way: reclaimed at 2.5 h (2 saved).
    let t = trace(3600, &[1, 0, 0, 1, 1, 1, 1, 1, 1, 1]);
    let sim = replay(&t, &shielded, Rule::Stay, None);
    assert_eq!(starts(&sim)[0], (2.5 + 0.5 + 0.1 + 2.0, 2.5 + 0.1 + 2.0, 1));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn policies_do_not_count_a_preemption_that_protection_absorbs() {
    let t = trace(3600, &[1, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    let od = FallbackPlan {
        run_hours: 4.0,
        queue: Queue::none(),
    };
    let four = job(4.0, 1, 0.0, 0.0, Some((1.0, 0.1)));
    let shielded = TimeInputs {
        protection_hours: 2.5,
        ..four
    };
    // Unprotected, the preemption at 1 h moves the job from tick 0; protected, it stays.
    let moved = replay(&t, &four, Rule::AfterPreemptions(1), Some(&od));
    assert!(moved.fallback_hours[0] > 0.0);
    let stayed = replay(&t, &shielded, Rule::AfterPreemptions(1), Some(&od));
    assert_eq!(stayed.fallback_hours[0], 0.0);
    assert_eq!(starts(&stayed)[0], (4.0, 4.0, 0));
    // The Monte Carlo's policies meet the protected capacity too: fewer moves than without it,
    // and after one preemption every trial that met one has moved.
    let spot = TimeInputs {
        gap_mean_hours: 1.0,
        ..job(8.0, 1, 0.5, 2.0, Some((1.0, 0.1)))
    };
    let draws = Draws::new(9, 4_000, 1);
    let with = simulate_policy(&spot, &draws, 9, "p", Rule::AfterPreemptions(1), Some(&od));
    let without = simulate_policy(
        &TimeInputs {
            protection_hours: 0.0,
            ..spot
        },
        &draws,
        9,
        "p",
        Rule::AfterPreemptions(1),
        Some(&od),
    );
    assert!(
        with.switched < without.switched,
        "{} vs {}",
        with.switched,
        without.switched
    );
    let met = with.interruptions.iter().filter(|&&n| n > 0).count();
    assert_eq!(with.switched, met);
    // Deadline-aware, too, finishes no later on average with the protection.
    let deadline = Rule::Deadline(14.0);
    let with = simulate_policy(&spot, &draws, 9, "d", deadline, Some(&od));
    let without = simulate_policy(
        &TimeInputs {
            protection_hours: 0.0,
            ..spot
        },
        &draws,
        9,
        "d",
        deadline,
        Some(&od),
    );
    assert!(Simulation::mean(&with.wall_hours) < Simulation::mean(&without.wall_hours));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn a_plan_reports_the_protection_it_used() {
    let mut catalog: Catalog = default_catalog().clone();
    let spot = catalog
        .offers
        .iter()
        .position(|o| o.billing_mode == BillingMode::Spot && o.interruptions.interrupts())
        .unwrap();
    catalog.offers[spot].interruptions.protection_hours = Some(0.0);
    let id = catalog.offers[spot].id.clone();
    let task = parse_task(
        r#"{"format_version": 1, "kind": "training", "work_hours": 6, "reference_gpu": "A100-80GB",
            "vram_gib": 10, "currency": "CNY", "checkpoint": {"interval_hours": 0.5, "restart_overhead_hours": 0.1}}"#,
    )
    .unwrap();
    let settings = PlanSettings {
        trials: 500,
        ..PlanSettings::default()
    };
    let option = |c: &Catalog| {
        plan(&task, c, &settings)
            .unwrap()
            .options
            .into_iter()
            .find(|o| o.offer_id == id)
            .unwrap()
    };
    let zero = option(&catalog);
    let risk = serde_json::to_value(zero.risk.as_ref().unwrap()).unwrap();
    assert!(risk.get("protection_hours").is_none(), "{risk}");
    catalog.offers[spot].interruptions.protection_hours = Some(1.0);
    let one = option(&catalog);
    assert_eq!(one.risk.as_ref().unwrap().protection_hours, 1.0);
    assert!(one.interruptions_expected < zero.interruptions_expected);
    assert!(one.running_hours_expected < zero.running_hours_expected);
}
