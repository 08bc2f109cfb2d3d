//! Invariants of the plan that must hold for every input, checked with proptest.
#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::numbers::money::{Currency, Money};
use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use gpufare_core::plan::plan;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::document::{Checkpoint, Sensitivity, TaskKind, TaskProfile};
use gpufare_core::task::policy::Policy;
use proptest::prelude::*;
use rust_decimal::Decimal;

fn settings(seed: u64) -> PlanSettings {
    PlanSettings {
        trials: 200,
        seed,
        ..PlanSettings::default()
    }
}

/// A sample of the default catalog: every tenancy and billing mode, kept small for speed.
fn sample_catalog() -> Catalog {
    let all = &default_catalog().offers;
    let offers: Vec<Offer> = all.iter().step_by(6).cloned().collect();
    Catalog {
        format_version: 1,
        offers,
    }
}

fn kind() -> impl Strategy<Value = TaskKind> {
    prop::sample::select(vec![
        TaskKind::Training,
        TaskKind::FineTuneQlora,
        TaskKind::FineTuneFull,
        TaskKind::ImageGeneration,
        TaskKind::Batch,
        TaskKind::CodeCheck,
    ])
}

prop_compose! {
    fn task()(
        kind in kind(),
        work in 0.0f64..2000.0,
        runs in 1u32..6,
        vram in 1.0f64..120.0,
        gpus in prop::sample::select(vec![1u32, 1, 1, 2, 8]),
        deadline in prop::option::of(1.0f64..5000.0),
        checkpoint in prop::option::of((0.1f64..10.0, 0.0f64..1.0)),
        vot in 0u32..200,
        sensitivity in prop::sample::select(vec![Sensitivity::Public, Sensitivity::Internal, Sensitivity::Confidential, Sensitivity::InHouse]),
    ) -> TaskProfile {
        TaskProfile {
            format_version: 1,
            name: String::new(),
            kind,
            work_hours: work,
            reference_gpu: "A100-80GB".into(),
            bound: Default::default(),
            runs,
            vram_gib: vram,
            gpus,
            scales_across_gpus: gpus > 1,
            sensitivity,
            deadline_hours: deadline,
            deadline_penalty: deadline.map(|_| Decimal::from(500)),
            deadline_hard: false,
            latency: None,
            checkpoint: checkpoint.map(|(interval_hours, restart_overhead_hours)| Checkpoint { interval_hours, restart_overhead_hours, save_minutes: None }),
            interruptible: true,
            spot_policy: None,
            max_queue_hours: None,
            neighbour_load: None,
            value_of_time_per_hour: Decimal::from(vot),
            budget: None,
            service: None,
            prototype: None,
        data_parallel: None,
        serving: None,
            storage_gb: 50.0,
            storage_months: 1.0,
            egress_gb: 10.0,
            data_read_gb: None,
            data_download_gb: None,
            currency: Currency::Cny,
            reach: Default::default(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn more_work_never_costs_less(t in task(), extra in 0.0f64..500.0) {
        // Staying on each offer: the policy choice may trade hours for money (see below).
        let t = TaskProfile { spot_policy: Some(Policy::SpotOnly), ..t };
        let catalog = sample_catalog();
        let short = plan(&t, &catalog, &settings(1)).unwrap();
        let long = plan(&TaskProfile { work_hours: t.work_hours + extra, ..t.clone() }, &catalog, &settings(1)).unwrap();
        for a in &short.options {
            let b = long.options.iter().find(|b| b.offer_id == a.offer_id).unwrap();
            // An offer the longer job cannot finish on (a spot offer without checkpoints, say)
            // is refused, its hours held at the model's ceiling: nothing to compare.
            if !(a.feasible && b.feasible) {
                continue;
            }
            prop_assert!(b.costs.rent.amount >= a.costs.rent.amount, "{}: rent {} -> {}", a.offer_id, a.costs.rent.amount, b.costs.rent.amount);
            prop_assert!(b.hours_expected >= a.hours_expected - 1e-9, "{}", a.offer_id);
            if a.costs.risk_cost.amount.is_zero() && b.costs.risk_cost.amount.is_zero() {
                prop_assert!(b.costs.total_expected.amount >= a.costs.total_expected.amount, "{}", a.offer_id);
            }
        }
    }

    #[test]
    fn the_chosen_policy_never_costs_more_than_staying(t in task()) {
        let result = plan(&t, &sample_catalog(), &settings(4)).unwrap();
        for o in &result.options {
            let Some(risk) = &o.risk else { continue };
            let stay = risk.spot_only().unwrap();
            let chosen = risk.chosen_result().unwrap();
            if stay.usable {
                prop_assert!(chosen.usable, "{}", o.offer_id);
                prop_assert!(
                    chosen.evidence().total_expected <= stay.evidence().total_expected,
                    "{}: {} chosen at {} over staying at {}",
                    o.offer_id, chosen.id, chosen.evidence().total_expected, stay.evidence().total_expected
                );
            }
        }
    }

    #[test]
    fn a_lower_price_never_raises_the_cheapest_total(t in task(), pick in 0usize..1000, cut in 1u32..100) {
        let catalog = sample_catalog();
        let before = plan(&t, &catalog, &settings(2)).unwrap();
        let mut cheaper = catalog.clone();
        let i = pick % cheaper.offers.len();
        cheaper.offers[i].price = cheaper.offers[i].price * Decimal::from(100 - cut) / Decimal::from(100);
        let after = plan(&t, &cheaper, &settings(2)).unwrap();
        let min = |p: &gpufare_core::plan::PlanResult| p.options.iter().filter(|o| o.feasible).map(|o| o.costs.total_expected.amount).min();
        if let (Some(a), Some(b)) = (min(&before), min(&after)) {
            prop_assert!(b <= a + Decimal::new(1, 2), "cheapest total rose from {a} to {b}");
        }
        let changed = &cheaper.offers[i].id;
        let (a, b) = (before.options.iter().find(|o| &o.offer_id == changed).unwrap(), after.options.iter().find(|o| &o.offer_id == changed).unwrap());
        prop_assert!(b.costs.rent.amount <= a.costs.rent.amount);
    }

    #[test]
    fn same_input_and_seed_give_identical_output(t in task(), seed in any::<u64>()) {
        let catalog = sample_catalog();
        let a = plan(&t, &catalog, &settings(seed)).unwrap();
        let b = plan(&t, &catalog, &settings(seed)).unwrap();
        prop_assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    }

    #[test]
    fn totals_cover_rent_and_dedicated_is_steadiest(t in task()) {
        let result = plan(&t, &sample_catalog(), &settings(3)).unwrap();
        let dedicated_max = result.options.iter().filter(|o| !o.shared).map(|o| o.slowdown.median).fold(0.0, f64::max);
        for o in &result.options {
            prop_assert!(o.costs.total_expected.amount >= o.costs.rent.amount);
            prop_assert!(o.hours_p90 + 1e-9 >= o.hours_p50);
            if o.shared && o.slowdown.source == gpufare_core::offers::tenancy::SlowdownSource::Assumed {
                prop_assert!(o.slowdown.median >= dedicated_max);
            }
            if let Some(p) = o.deadline_miss_probability {
                prop_assert!((0.0..=1.0).contains(&p));
            }
        }
        // Feasible options come first, cheapest first.
        let feasible: Vec<_> = result.options.iter().take_while(|o| o.feasible).collect();
        prop_assert!(result.options.iter().skip(feasible.len()).all(|o| !o.feasible));
        prop_assert!(feasible.windows(2).all(|w| w[0].costs.total_expected.amount <= w[1].costs.total_expected.amount));
        let _ = Money::zero(Currency::Cny);
    }

    #[test]
    fn no_input_panics(
        work in prop::num::f64::ANY,
        vram in prop::num::f64::ANY,
        runs in any::<u32>(),
        gpus in any::<u32>(),
        interval in prop::num::f64::ANY,
        p_month in prop::num::f64::ANY,
        fraction in prop::num::f64::ANY,
        price in any::<i64>(),
        trials in 0u32..50,
    ) {
        let t = TaskProfile {
            work_hours: work,
            vram_gib: vram,
            runs,
            gpus,
            checkpoint: Some(Checkpoint { interval_hours: interval, restart_overhead_hours: 0.1, save_minutes: None }),
            ..task_fixture()
        };
        let mut offer = default_catalog().offers[0].clone();
        offer.interruptions.interruption_per_month = Some(p_month);
        offer.gpu_fraction = fraction;
        offer.price = Decimal::new(price, 3);
        let catalog = Catalog { format_version: 1, offers: vec![offer] };
        // Either a plan or an error; never a panic.
        let _ = plan(&t, &catalog, &PlanSettings { trials, ..PlanSettings::default() });
    }
}

fn task_fixture() -> TaskProfile {
    serde_json::from_str(r#"{"format_version":1,"kind":"training","work_hours":10,"reference_gpu":"A100-80GB","vram_gib":20,"currency":"CNY"}"#).unwrap()
}
