//! Regression tests for the hostile inputs found by fuzzing the CLI (issue 18): each one panicked,
//! hung or was accepted before, and must now be refused with a named field, or priced quickly.
#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::numbers::money::Currency;
use gpufare_core::offers::catalog::{CatalogError, catalog_to_json, parse_catalog_json};
use gpufare_core::offers::csv::parse_catalog_csv;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::skypilot::import_vms_csv;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::{PlanError, plan};
use gpufare_core::profile::document::{ProfileError, parse_profile};
use gpufare_core::scenario::document::{Scenario, ScenarioError, parse_scenario};
use gpufare_core::task::document::{Checkpoint, parse_task};
use rust_decimal::Decimal;

fn sd_lora() -> gpufare_core::task::document::TaskProfile {
    parse_task(include_str!("../../examples/sd_lora.json")).unwrap()
}

#[test]
fn a_vanishing_price_is_refused_by_name_not_divided_by() {
    // A price of 1e-28 next to a monthly offer of the same GPU overflowed the break-even ratio.
    let mut catalog = default_catalog().clone();
    catalog.offers[0].price = Decimal::new(1, 28);
    let err = parse_catalog_json(&catalog_to_json(&catalog)).unwrap_err();
    match err {
        CatalogError::Field { field, .. } => assert_eq!(field, "offers[0].price"),
        other => panic!("expected a price error, got {other:?}"),
    }
    // Zero stays allowed (free egress, a gift), and so does a millionth.
    catalog.offers[0].price = Decimal::new(1, 6);
    catalog.offers[1].egress_per_gb = Decimal::ZERO;
    parse_catalog_json(&catalog_to_json(&catalog)).unwrap();
}

#[test]
fn a_vanishing_exchange_rate_is_refused_not_divided_by() {
    let task = sd_lora();
    for rate in [Decimal::new(1, 28), Decimal::ZERO, Decimal::new(-7, 0)] {
        let settings = PlanSettings {
            cny_per_usd: rate,
            currency: Currency::Usd,
            ..PlanSettings::default()
        };
        match plan(&task, default_catalog(), &settings) {
            Err(PlanError::Setting(e)) => assert_eq!(e.field, "cny_per_usd"),
            other => panic!("rate {rate}: expected a setting error, got {other:?}"),
        }
        // The same rate in a share link is refused when it is read.
        let mut scenario = Scenario::new(task.clone(), None);
        scenario.settings.cny_per_usd = rate;
        let text = serde_json::to_string(&scenario).unwrap();
        assert!(matches!(
            parse_scenario(&text),
            Err(ScenarioError::Setting(_))
        ));
    }
}

#[test]
fn trials_past_the_limit_are_refused() {
    let settings = PlanSettings {
        trials: 1_000_000,
        ..PlanSettings::default()
    };
    match plan(&sd_lora(), default_catalog(), &settings) {
        Err(PlanError::Setting(e)) => assert_eq!(e.field, "trials"),
        other => panic!("expected a trials error, got {other:?}"),
    }
}

#[test]
fn near_certain_preemption_with_tiny_checkpoints_is_priced_not_hung() {
    // Six spot offers preempted with monthly probability 0.9999999999 (about 0.03 per hour)
    // and a 0.001 h checkpoint: one random draw per interruption once took 48 s.
    let mut catalog = default_catalog().clone();
    // Three more at the highest hourly rate accepted.
    catalog.offers.retain(|o| o.interruptions.interrupts());
    catalog.offers.truncate(9);
    for (i, o) in catalog.offers.iter_mut().enumerate() {
        o.interruptions = gpufare_core::offers::interruption::Interruptions {
            interruption_per_month: (i < 6).then_some(0.999_999_999_9),
            interruption_per_hour: (i >= 6).then_some(60.0),
            ..Default::default()
        };
        o.interruptions.validate().unwrap();
    }
    let task = gpufare_core::task::document::TaskProfile {
        work_hours: 2000.0,
        runs: 32,
        checkpoint: Some(Checkpoint {
            interval_hours: 0.001,
            restart_overhead_hours: 0.0,
            save_minutes: None,
        }),
        ..sd_lora()
    };
    let result = plan(&task, &catalog, &PlanSettings::default()).unwrap();
    assert_eq!(result.options.len(), 9);
    assert!(result.options.iter().all(|o| o.hours_expected.is_finite()));
}

#[test]
fn a_scenario_with_impossible_measured_figures_is_refused_by_name() {
    let mut scenario = Scenario::new(sd_lora(), None);
    scenario
        .measured
        .push(gpufare_core::profile::evidence::MeasuredFactors {
            gpu: "A10".into(),
            shared: true,
            tenancy: None,
            visible_vram_gib: Some(0.0),
            slowdown: None,
            io: None,
            neighbour_load: None,
        });
    let text = serde_json::to_string(&scenario).unwrap();
    match parse_scenario(&text) {
        Err(ScenarioError::Measured { gpu, error }) => {
            assert_eq!(
                (gpu.as_str(), error.field.as_str()),
                ("A10", "visible_vram_gib")
            );
        }
        other => panic!("expected a measured-figures error, got {other:?}"),
    }
}

#[test]
fn a_profile_with_impossible_gpu_memory_is_refused_by_name() {
    let base = include_str!("../../tests/profiles/dedicated-h100.json");
    let mut value: serde_json::Value = serde_json::from_str(base).unwrap();
    parse_profile(base).unwrap();
    for bytes in [0u64, 5 << 40] {
        value["gpus"][0]["memory_total_bytes"] = bytes.into();
        match parse_profile(&value.to_string()) {
            Err(ProfileError::OutOfRange(e)) => {
                assert_eq!(e.field, "gpus[0].memory_total_bytes")
            }
            other => panic!("{bytes} bytes: expected a range error, got {other:?}"),
        }
    }
}

#[test]
fn empty_catalogs_are_refused_in_every_form() {
    assert_eq!(
        parse_catalog_json(r#"{"format_version": 1, "offers": []}"#),
        Err(CatalogError::Empty { skipped: 0 })
    );
    let header = include_str!("../data/catalog.csv")
        .lines()
        .find(|l| l.starts_with("id,"))
        .unwrap();
    assert_eq!(
        parse_catalog_csv(&format!("{header}\n")),
        Err(CatalogError::Empty { skipped: 0 })
    );
    // A SkyPilot file whose every row is skipped (an accelerator nobody knows).
    let sky = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n\
               x1,NoSuchGPU,1,4,16,1.0,us-east-1,,\n";
    match import_vms_csv(sky, "aws", "2026-01") {
        Err(CatalogError::Empty { skipped }) => assert_eq!(skipped, 1),
        other => panic!("expected an empty catalog, got {other:?}"),
    }
}

#[test]
fn a_budget_with_impossible_totals_is_refused_by_name() {
    use gpufare_core::export::budget::{BudgetError, budget, budget_json, parse_budget};
    let task = sd_lora();
    let settings = PlanSettings {
        trials: 50,
        ..PlanSettings::default()
    };
    let result = plan(&task, default_catalog(), &settings).unwrap();
    let good = budget(&result, &task, default_catalog());
    parse_budget(&budget_json(&good)).unwrap();
    // `--diff` trusted these and printed "+inf", 300-digit and negative totals.
    for bad in [-5.0, 1e300] {
        let mut b = good.clone();
        b.options[1].total_expected = bad;
        match parse_budget(&budget_json(&b)) {
            Err(BudgetError::OutOfRange(e)) => assert_eq!(e.field, "options[1].total_expected"),
            other => panic!("{bad}: expected a range error, got {other:?}"),
        }
    }
    // An embedded scenario is checked like a share link.
    let mut b = good.clone();
    let mut scenario = Scenario::new(task, None);
    scenario.settings.cny_per_usd = Decimal::new(1, 28);
    b.scenario = Some(scenario);
    assert!(matches!(
        parse_budget(&budget_json(&b)),
        Err(BudgetError::Scenario(ScenarioError::Setting(_)))
    ));
}
