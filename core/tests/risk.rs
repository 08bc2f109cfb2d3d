//! Risk from evidence: the replay against the model on a long synthetic Poisson trace, the
//! policies' guarantees, the default catalog's spot rows against the shipped traces, and the
//! properties the issue asks for (more preemptions never shorten a job; a fallback never
//! finishes later than staying; on-demand only costs what the on-demand offer costs).

use gpufare_core::numbers::rng::Stream;
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::interruption::{
    TRACE_BEST_RATE_PER_HOUR, TRACE_POOLED_GAP_HOURS, TRACE_POOLED_RATE_PER_HOUR,
    TRACE_WORST_RATE_PER_HOUR,
};
use gpufare_core::offers::tenancy::{Slowdown, SlowdownSource};
use gpufare_core::offers::trace::{AttachedTrace, Span, Trace, parse_trace};
use gpufare_core::plan::job::Rule;
use gpufare_core::plan::replay::replay;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::time::{Draws, Simulation, TimeInputs, expect, simulate_policy};
use gpufare_core::plan::{plan, plan_with_traces};
use gpufare_core::task::document::{Checkpoint, parse_task};
use gpufare_core::task::policy::Policy;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const EAST_1C: &str =
    include_str!("../../tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json");
const WEST_2B: &str =
    include_str!("../../tests/fixtures/traces/aws-2023-04-22-us-west-2b-p3.2xlarge-v100.json");

fn flat() -> Slowdown {
    Slowdown {
        median: 1.0,
        p99: 1.0,
        source: SlowdownSource::Assumed,
    }
}

fn job(work: f64, interval: f64, restart: f64) -> TimeInputs {
    TimeInputs {
        checkpoint: Some(Checkpoint {
            interval_hours: interval,
            restart_overhead_hours: restart,
            save_minutes: None,
        }),
        queue_every_run: true,
        ..TimeInputs::plain(work, 1, flat())
    }
}

/// A trace drawn from the model itself: running spells exponential with mean 1/rate, gaps
/// exponential with mean `gap`, for `hours` in all.
fn poisson_trace(rate: f64, gap: f64, hours: f64, seed: u64) -> Trace {
    let mut s = Stream::new(seed, "synthetic trace");
    let mut spans = Vec::new();
    let mut total = 0.0;
    let mut running = true;
    while total < hours * 3600.0 {
        let mean = if running { 1.0 / rate } else { gap };
        let seconds = (mean * s.exponential() * 3600.0).max(1e-3);
        spans.push(Span {
            count: u32::from(running),
            seconds,
        });
        total += seconds;
        running = !running;
    }
    Trace {
        name: "synthetic".to_owned(),
        tick_seconds: 60.0,
        ticks: (total / 60.0) as u64,
        spans,
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_replay_of_a_long_poisson_trace_agrees_with_the_model() {
    // 20,000 hours at 0.5 preemptions per running hour with 1 h gaps: some 6,700 preemptions.
    let trace = poisson_trace(0.5, 1.0, 20_000.0, 7);
    let stats = trace.stats();
    assert!(
        (stats.fitted.rate_per_hour / 0.5 - 1.0).abs() < 0.05,
        "{stats:?}"
    );
    assert!(
        (stats.fitted.gap_mean_hours - 1.0).abs() < 0.05,
        "{stats:?}"
    );
    let inputs = job(10.0, 1.0, 0.1).fitted_to(&stats.fitted);
    let replayed = replay(&trace, &inputs, Rule::Stay, None);
    let expected = expect(&inputs);
    let mean = Simulation::mean(&replayed.wall_hours);
    let billed = Simulation::mean(&replayed.running_hours);
    // Starts overlap (a 20 h job from every tick of a 20,000 h trace): about a thousand
    // independent jobs, so the sampling error of the mean is a few per cent.
    assert!(
        (mean / expected.wall_hours() - 1.0).abs() < 0.05,
        "replay mean {mean} h vs closed form {} h",
        expected.wall_hours()
    );
    assert!(
        (billed / expected.running_hours - 1.0).abs() < 0.05,
        "replay billed {billed} h vs closed form {} h",
        expected.running_hours
    );
    let draws = Draws::new(3, 4000, 1);
    let model = simulate_policy(&inputs, &draws, 3, "synthetic", Rule::Stay, None);
    for q in [0.5, 0.9] {
        let (r, m) = (replayed.at_quantile(q).0, model.at_quantile(q).0);
        assert!(
            (r / m - 1.0).abs() < 0.08,
            "P{} replay {r} h vs model {m} h",
            q * 100.0
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_default_spot_rows_rest_on_the_shipped_traces() {
    let east = parse_trace("east", EAST_1C).unwrap().stats();
    let west = parse_trace("west", WEST_2B).unwrap().stats();
    let pooled =
        f64::from(east.preemptions + west.preemptions) / (east.running_hours + west.running_hours);
    let gap = (east.fitted.gap_mean_hours * f64::from(east.preemptions)
        + west.fitted.gap_mean_hours * f64::from(west.preemptions))
        / f64::from(east.preemptions + west.preemptions);
    assert!(
        (pooled - TRACE_POOLED_RATE_PER_HOUR).abs() < 5e-4,
        "{pooled}"
    );
    assert!((gap - TRACE_POOLED_GAP_HOURS).abs() < 5e-3, "{gap}");
    assert!((west.per_running_hour - TRACE_BEST_RATE_PER_HOUR).abs() < 5e-4);
    assert!((east.per_running_hour - TRACE_WORST_RATE_PER_HOUR).abs() < 5e-4);
    let spot: Vec<_> = default_catalog()
        .offers
        .iter()
        .filter(|o| o.billing_mode.id() == "spot")
        .collect();
    assert_eq!(spot.len(), 14);
    for o in spot {
        let i = &o.interruptions;
        assert!(
            i.interruption_source
                .as_deref()
                .is_some_and(|s| !s.is_empty()),
            "{}",
            o.id
        );
        assert_eq!(
            i.capacity_gap_hours,
            Some(TRACE_POOLED_GAP_HOURS),
            "{}",
            o.id
        );
        assert!(i.notice_seconds.is_some(), "{}", o.id);
        let (low, high) = i.range().unwrap();
        assert!(
            low <= i.rate_per_hour() && i.rate_per_hour() <= high,
            "{}",
            o.id
        );
        assert_eq!(high, TRACE_WORST_RATE_PER_HOUR, "{}", o.id);
        // Every spot row is now in the range the traces measured, or scaled from it by its
        // advisor band: never the 0.0005 per hour a monthly band alone gives.
        assert!(i.rate_per_hour() > 0.02, "{}: {}", o.id, i.rate_per_hour());
    }
}

fn sd_lora(policy: Option<Policy>, deadline: Option<f64>) -> gpufare_core::task::TaskProfile {
    let mut task = parse_task(include_str!("../../examples/sd_lora.json")).unwrap();
    task.spot_policy = policy;
    task.deadline_hours = deadline;
    task
}

fn pair() -> Catalog {
    Catalog {
        format_version: 1,
        offers: default_catalog()
            .offers
            .iter()
            .filter(|o| o.id == "aws-use1-g5xl-spot" || o.id == "aws-use1-g5xl-payg")
            .cloned()
            .collect(),
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn on_demand_only_costs_what_the_on_demand_offer_costs() {
    let settings = PlanSettings {
        trials: 300,
        ..PlanSettings::default()
    };
    let p = plan(
        &sd_lora(Some(Policy::OnDemandOnly), None),
        &pair(),
        &settings,
    )
    .unwrap();
    let spot = p
        .options
        .iter()
        .find(|o| o.offer_id == "aws-use1-g5xl-spot")
        .unwrap();
    let payg = p
        .options
        .iter()
        .find(|o| o.offer_id == "aws-use1-g5xl-payg")
        .unwrap();
    assert_eq!(spot.policy, Some(Policy::OnDemandOnly));
    assert_eq!(spot.costs, payg.costs);
    assert_eq!(
        (spot.hours_expected, spot.hours_p90),
        (payg.hours_expected, payg.hours_p90)
    );
    let risk = spot.risk.as_ref().unwrap();
    assert_eq!(risk.fallback_offer.as_deref(), Some("aws-use1-g5xl-payg"));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn the_recommendation_names_its_policy_and_a_trace_replaces_the_assumption() {
    let settings = PlanSettings {
        trials: 300,
        ..PlanSettings::default()
    };
    let traces = [AttachedTrace {
        offer_id: "aws-use1-g5xl-spot".to_owned(),
        trace: parse_trace("east.json", EAST_1C).unwrap(),
    }];
    let mut catalog = pair();
    catalog.offers.retain(|o| o.id == "aws-use1-g5xl-spot");
    let p = plan_with_traces(&sd_lora(None, None), &catalog, &traces, &settings).unwrap();
    let spot = &p.options[0];
    let risk = spot.risk.as_ref().unwrap();
    assert_eq!(risk.rate_source.id(), "trace");
    assert!((risk.rate_per_hour - 0.735).abs() < 1e-3);
    assert!(risk.policies.iter().all(|r| r.replay.is_some()));
    assert!(spot.flags.iter().any(|f| f.rule.id() == "risk_from_trace"));
    // The headline is the replay's (evidence beats the model).
    let chosen = risk.chosen_result().unwrap();
    assert_eq!(spot.hours_p90, chosen.replay.as_ref().unwrap().hours_p90);
    assert!(
        p.decision
            .reasons
            .iter()
            .any(|r| r.rule.id() == "spot_policy")
    );
    // Same seed, same answer.
    let again = plan_with_traces(&sd_lora(None, None), &catalog, &traces, &settings).unwrap();
    assert_eq!(p, again);
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use gpufare_core::plan::time::FallbackPlan;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// More preemptions never shorten a job: the closed form grows with the rate.
        #[test]
        fn a_higher_rate_never_shortens_the_expectation(
            work in 0.1f64..200.0,
            interval in 0.05f64..20.0,
            restart in 0.0f64..1.0,
            gap in 0.0f64..5.0,
            rate in 0.0f64..3.0,
            more in 0.0f64..3.0,
            saves in any::<bool>(),
        ) {
            let base = TimeInputs { gap_mean_hours: gap, saves_on_notice: saves, ..job(work, interval, restart) };
            let a = expect(&TimeInputs { interruptions_per_hour: rate, ..base });
            let b = expect(&TimeInputs { interruptions_per_hour: rate + more, ..base });
            prop_assume!(!a.never_finishes);
            prop_assert!(b.wall_hours() >= a.wall_hours() - 1e-9 * a.wall_hours());
            prop_assert!(b.running_hours >= a.running_hours - 1e-9 * a.running_hours);
        }

        /// More preemptions never shorten a job: an extra outage in a trace never makes any start
        /// finish earlier. This holds start by start when restarts are free: the job with the
        /// outage is never ahead. With a restart overhead it holds on average but not for every
        /// start: an outage can push a start into a longer window that its first attempt uses
        /// without a restart (proptest found one: ticks 1,0,0,1,0,1 of 15 min, the fourth cut,
        /// a 2.5 h job with 0.1 h checkpoints and 0.28 h restarts starting at the second tick
        /// ends 1.4 h sooner).
        #[test]
        fn an_extra_outage_never_shortens_a_replayed_job(
            ticks in prop::collection::vec(0u32..2, 4..40),
            cut in 0usize..40,
            work in 0.1f64..6.0,
            interval in 0.1f64..3.0,
            saves in any::<bool>(),
        ) {
            let restart = 0.0;
            let mut counts = ticks.clone();
            counts[0] = 1;
            let trace = |c: &[u32]| {
                let data: Vec<String> = c.iter().map(u32::to_string).collect();
                parse_trace("p", &format!(r#"{{"metadata":{{"gap_seconds":900}},"data":[{}]}}"#, data.join(","))).unwrap()
            };
            let before = trace(&counts);
            let mut fewer = counts.clone();
            let i = cut % fewer.len();
            fewer[i] = 0;
            prop_assume!(fewer.contains(&1));
            let after = trace(&fewer);
            let inputs = TimeInputs { saves_on_notice: saves, ..job(work, interval, restart) };
            let a = replay(&before, &inputs, Rule::Stay, None);
            let b = replay(&after, &inputs, Rule::Stay, None);
            for (start, (x, y)) in a.wall_hours.iter().zip(&b.wall_hours).enumerate() {
                prop_assert!(y + 1e-9 >= *x, "start {start}: {x} h before, {y} h with the outage at tick {i}");
            }
        }

        /// A fallback to the same GPU without a queue never finishes later than staying, trial by
        /// trial (the policies share each trial's luck) and start by start.
        #[test]
        fn a_fallback_never_finishes_later_than_staying(
            work in 0.5f64..30.0,
            interval in 0.1f64..5.0,
            restart in 0.0f64..0.5,
            rate in 0.01f64..2.0,
            gap in 0.0f64..3.0,
            n in 1u32..5,
            seed in any::<u64>(),
        ) {
            let inputs = TimeInputs {
                interruptions_per_hour: rate,
                gap_mean_hours: gap,
                ..job(work, interval, restart)
            };
            // Staying must finish in reasonable time for the trials to end (a job that never does
            // is the closed form's business).
            prop_assume!(expect(&inputs).wall_hours() < 500.0);
            let fallback = FallbackPlan { run_hours: work, queue: gpufare_core::offers::queue::Queue::none() };
            let draws = Draws::new(seed, 200, 1);
            let stay = simulate_policy(&inputs, &draws, seed, "p", Rule::Stay, None);
            let moved = simulate_policy(&inputs, &draws, seed, "p", Rule::AfterPreemptions(n), Some(&fallback));
            for (t, (s, m)) in stay.wall_hours.iter().zip(&moved.wall_hours).enumerate() {
                prop_assert!(m <= &(s + 1e-9), "trial {t}: fallback {m} h, staying {s} h");
            }
            let mut trace = poisson_trace(rate, gap.max(0.01), 200.0, seed);
            trace.tick_seconds = 900.0;
            let stay = replay(&trace, &inputs, Rule::Stay, None);
            let moved = replay(&trace, &inputs, Rule::AfterPreemptions(n), Some(&fallback));
            for (t, (s, m)) in stay.wall_hours.iter().zip(&moved.wall_hours).enumerate() {
                prop_assert!(m <= &(s + 1e-9), "start {t}: fallback {m} h, staying {s} h");
            }
        }
    }
}
