//! The serving model's behaviour: different traffic picks different deployments, replicas follow
//! traffic, caps and slow starts cost attainment, bad input is refused by name, nothing panics.

use gpufare_core::numbers::money::Currency;
use gpufare_core::offers::billing::{BillingMode, Granularity};
use gpufare_core::offers::offer::Offer;
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::serving::deploy::{
    DeploySettings, DeploymentKind, DeploymentOffers, Deployments, choose, price_deployments,
};
use gpufare_core::serving::replica::ReplicaSetup;
use gpufare_core::task::traffic::{Traffic, office_hours, steady_api};
use gpufare_core::workload::llm::arch::Precision;
use rust_decimal::Decimal;

fn offer(id: &str, mode: BillingMode, price: &str) -> Offer {
    let mut o = Offer::blank();
    o.id = id.to_owned();
    o.provider = "test".to_owned();
    o.gpu = "H100-SXM".to_owned();
    o.vram_gib = 79.6;
    o.billing_mode = mode;
    o.granularity = mode.is_metered().then_some(Granularity::Second);
    o.price = price.parse().unwrap();
    o.currency = Currency::Usd;
    o.as_of = "2025-01".to_owned();
    o.source = "test".to_owned();
    o
}

/// An H100 at 2.50 USD/h, the same at 1300 USD/month (1.78/h), and half an H100 time-sliced at
/// 1.60 USD per busy hour.
fn offers() -> (Offer, Offer, Offer) {
    let on_demand = offer("h100-payg", BillingMode::PayAsYouGo, "2.50");
    let monthly = offer("h100-monthly", BillingMode::Monthly, "1300");
    let mut shared = offer("h100-half-shared", BillingMode::PayAsYouGo, "1.60");
    shared.tenancy = Tenancy::TimeSliced;
    shared.gpu_fraction = 0.5;
    shared.vram_gib = 39.8;
    (on_demand, monthly, shared)
}

fn setup() -> ReplicaSetup {
    ReplicaSetup::preset("llama-3.1-8b", Precision::Bf16, 1).unwrap()
}

fn price(traffic: &Traffic, settings: &DeploySettings) -> Deployments {
    let (d, m, s) = offers();
    let offers = DeploymentOffers {
        on_demand: &d,
        committed: Some(&m),
        shared: Some(&s),
    };
    price_deployments(traffic, &setup(), &offers, settings).unwrap()
}

fn print(d: &Deployments) {
    for x in &d.deployments {
        println!(
            "{:?} {} {} att {:.4} base {} max {:.1} {:?}",
            x.kind,
            x.offer_id,
            x.cost_per_month.plain(),
            x.attainment,
            x.base_replicas,
            x.replicas_by_hour.iter().copied().fold(0.0, f64::max),
            x.notes
        );
    }
    for s in &d.skipped {
        println!("skipped {:?}: {}", s.kind, s.reason);
    }
}

#[test]
fn steady_low_and_office_hours_pick_different_deployments() {
    let settings = DeploySettings::default();
    let low = price(&steady_api(0.2), &settings);
    print(&low);
    let office = price(&office_hours(20.0), &settings);
    print(&office);
    assert_eq!(low.deployments.len(), 4);
    assert_eq!(office.deployments.len(), 4);
    let a = choose(&low, 0.99).unwrap();
    let b = choose(&office, 0.99).unwrap();
    println!("{}\n{}", a.reason, b.reason);
    assert!(
        matches!(
            a.kind,
            DeploymentKind::SharedPool | DeploymentKind::FixedFleet
        ),
        "{a:?}"
    );
    assert!(
        matches!(
            b.kind,
            DeploymentKind::Autoscaling | DeploymentKind::ReservedBase
        ),
        "{b:?}"
    );
    assert_ne!(a.kind, b.kind);
    assert!(a.meets_target && b.meets_target);
}

#[test]
fn the_reason_states_only_figures_the_deployments_hold() {
    for traffic in [steady_api(0.2), office_hours(20.0), steady_api(50.0)] {
        let d = price(&traffic, &DeploySettings::default());
        let c = choose(&d, 0.99).unwrap();
        let best = d
            .deployments
            .iter()
            .filter(|x| x.attainment >= 0.99)
            .min_by_key(|x| x.cost_per_month.amount)
            .unwrap();
        assert_eq!(best.cost_per_month, c.cost_per_month);
        assert!(
            c.reason.contains(&best.cost_per_month.plain()),
            "{}",
            c.reason
        );
        let mut others: Vec<_> = d
            .deployments
            .iter()
            .filter(|x| x.attainment >= 0.99 && x.kind != c.kind)
            .collect();
        others.sort_by_key(|x| x.cost_per_month.amount);
        if let Some(next) = others.first() {
            let diff = next.cost_per_month.amount - best.cost_per_month.amount;
            assert!(diff >= Decimal::ZERO);
            assert!(
                c.reason.contains(&next.cost_per_month.plain()),
                "{}",
                c.reason
            );
            if diff > Decimal::ZERO {
                assert!(
                    c.reason.contains(&format!("{} USD more", diff.round_dp(2))),
                    "{}",
                    c.reason
                );
            }
        }
    }
}

#[test]
fn replicas_rise_with_traffic() {
    let mut last = 0;
    for mean in [1.0, 10.0, 40.0, 120.0] {
        let d = price(&steady_api(mean), &DeploySettings::default());
        let fleet = d
            .deployments
            .iter()
            .find(|x| x.kind == DeploymentKind::FixedFleet)
            .unwrap();
        assert!(
            fleet.base_replicas >= last,
            "{mean}: {}",
            fleet.base_replicas
        );
        last = fleet.base_replicas;
    }
    assert!(last > 1);
    let office = price(&office_hours(20.0), &DeploySettings::default());
    let auto = office
        .deployments
        .iter()
        .find(|x| x.kind == DeploymentKind::Autoscaling)
        .unwrap();
    let t = office_hours(20.0);
    let (quiet, busy) = (3, 11);
    assert!(t.rps_by_hour[busy] > t.rps_by_hour[quiet]);
    assert!(auto.replicas_by_hour[busy] > auto.replicas_by_hour[quiet]);
}

#[test]
fn attainment_falls_when_replicas_are_capped_or_start_slowly() {
    let traffic = office_hours(20.0);
    let free = price(&traffic, &DeploySettings::default());
    let capped = price(
        &traffic,
        &DeploySettings {
            max_replicas: 1,
            min_replicas: 1,
            ..DeploySettings::default()
        },
    );
    let att = |d: &Deployments, k| {
        d.deployments
            .iter()
            .find(|x| x.kind == k)
            .unwrap()
            .attainment
    };
    assert!(att(&free, DeploymentKind::Autoscaling) >= 0.99);
    assert!(att(&capped, DeploymentKind::Autoscaling) < 0.9);
    assert!(att(&capped, DeploymentKind::FixedFleet) < att(&free, DeploymentKind::FixedFleet));

    // A pool where a start waits about an hour at P90 misses the morning ramp.
    let (mut d, m, s) = offers();
    d.queue_wait_hours = Some(0.5);
    let slow = price_deployments(
        &traffic,
        &setup(),
        &DeploymentOffers {
            on_demand: &d,
            committed: Some(&m),
            shared: Some(&s),
        },
        &DeploySettings::default(),
    )
    .unwrap();
    let auto = slow
        .deployments
        .iter()
        .find(|x| x.kind == DeploymentKind::Autoscaling)
        .unwrap();
    assert!(
        auto.scale_up_seconds.unwrap() > 600.0,
        "{:?}",
        auto.scale_up_seconds
    );
    assert!(auto.attainment < att(&free, DeploymentKind::Autoscaling));
}

#[test]
fn bad_input_is_refused_by_name() {
    let (d, m, s) = offers();
    let all = DeploymentOffers {
        on_demand: &d,
        committed: Some(&m),
        shared: Some(&s),
    };
    let ok = DeploySettings::default();
    let mut t = steady_api(1.0);
    t.rps_by_hour[3] = f64::INFINITY;
    let e = price_deployments(&t, &setup(), &all, &ok).unwrap_err();
    assert_eq!(e.field(), Some("rps_by_hour[3]"));
    let e = price_deployments(
        &steady_api(1.0),
        &setup(),
        &all,
        &DeploySettings {
            headroom: 0.0,
            ..ok
        },
    )
    .unwrap_err();
    assert_eq!(e.field(), Some("headroom"));
    let mut bad = setup();
    bad.gpus = 0;
    let e = price_deployments(&steady_api(1.0), &bad, &all, &ok).unwrap_err();
    assert_eq!(e.field(), Some("gpus"));
    let mut cny = m.clone();
    cny.currency = Currency::Cny;
    let e = price_deployments(
        &steady_api(1.0),
        &setup(),
        &DeploymentOffers {
            committed: Some(&cny),
            ..all
        },
        &ok,
    )
    .unwrap_err();
    assert_eq!(e.field(), Some("committed.currency"));
    // A model that does not fit, and an unknown GPU, skip deployments with the reason.
    let mut small = d.clone();
    small.gpu = "T4".to_owned();
    small.vram_gib = 15.0;
    let r = price_deployments(
        &steady_api(1.0),
        &setup(),
        &DeploymentOffers::one(&small),
        &ok,
    )
    .unwrap();
    assert!(r.deployments.is_empty());
    assert!(
        r.skipped.iter().any(|s| s.reason.contains("does not fit")),
        "{:?}",
        r.skipped
    );
    assert!(choose(&r, 0.99).is_none());
}

/// Property tests (native only: proptest does not build for wasm32).
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use gpufare_core::task::traffic::parse_traffic_csv;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn no_panic_on_extreme_input(
            rps in proptest::collection::vec(prop_oneof![Just(0.0), 0.0..1e5f64, Just(1e5)], 24),
            prompt in 1.0..1e6f64,
            output in 1.0..1e6f64,
            ttft in 0.001..3.6e6f64,
            tpot in 0.001..3.6e6f64,
            headroom in 0.01..1.0f64,
            max_replicas in 1u32..10_000,
            start in 0.0..86_400.0f64,
            queue in prop_oneof![Just(None), (0.0..1000.0f64).prop_map(Some)],
            gpus in 1u32..16,
        ) {
            let mut t = steady_api(1.0);
            t.rps_by_hour = rps;
            t.prompt_tokens.mean = prompt;
            t.prompt_tokens.p90 = prompt;
            t.output_tokens.mean = output;
            t.output_tokens.p90 = output;
            t.targets.ttft_p99_ms = ttft;
            t.targets.tpot_p99_ms = tpot;
            let (mut d, m, s) = offers();
            d.queue_wait_hours = queue;
            let settings = DeploySettings {
                headroom,
                max_replicas,
                min_replicas: 0,
                instance_start_seconds: start,
                ..DeploySettings::default()
            };
            let setup = ReplicaSetup::preset("llama-3.1-8b", Precision::Bf16, gpus).unwrap();
            let offers = DeploymentOffers { on_demand: &d, committed: Some(&m), shared: Some(&s) };
            let r = price_deployments(&t, &setup, &offers, &settings).unwrap();
            for x in &r.deployments {
                prop_assert!((0.0..=1.0).contains(&x.attainment), "{x:?}");
                prop_assert!(x.cost_per_month.amount >= Decimal::ZERO);
                prop_assert_eq!(x.replicas_by_hour.len(), 24);
            }
            let _ = choose(&r, 0.99);
        }

        #[test]
        fn any_text_is_answered_by_the_csv_reader(text in ".{0,400}") {
            let _ = parse_traffic_csv("fuzz", &text);
        }

        #[test]
        fn numeric_lines_are_answered_by_the_csv_reader(
            lines in proptest::collection::vec("[-0-9.,e ]{0,12}", 0..200),
        ) {
            let _ = parse_traffic_csv("fuzz", &lines.join("\n"));
        }
    }
}
