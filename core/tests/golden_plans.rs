//! The plan scenarios in `tests/golden/plans.json`, run natively and in wasm32.
//!
//! Their expected figures come from `tests/golden/src/plans.py`, which works them out with plain
//! arithmetic from the model's formulas, independently of this crate.

use std::collections::BTreeMap;

use gpufare_core::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog};
use gpufare_core::offers::offer::Offer;
use gpufare_core::offers::trace::AttachedTrace;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::{PlanResult, plan_with_traces};
use gpufare_core::task::document::TaskProfile;
use serde::Deserialize;
use serde_json::Value;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("../../tests/golden/plans.json");

#[derive(Deserialize)]
struct Golden {
    scenarios: Vec<Scenario>,
}

#[derive(Deserialize)]
struct Scenario {
    name: String,
    task: TaskProfile,
    offers: Vec<Offer>,
    #[serde(default)]
    traces: Vec<AttachedTrace>,
    settings: PlanSettings,
    expect: Expect,
}

#[derive(Deserialize)]
struct Expect {
    choice: Option<String>,
    recommended: Option<String>,
    ranking: Option<Vec<String>>,
    reasons: Option<Vec<String>>,
    hybrid: Option<Vec<(String, String, String)>>,
    #[serde(default)]
    options: BTreeMap<String, BTreeMap<String, Value>>,
}

fn json_id<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn check_option(scenario: &str, option: &OptionResult, expected: &BTreeMap<String, Value>) {
    let actual = serde_json::to_value(option).unwrap();
    let ctx = format!("{scenario} / {}", option.offer_id);
    for (field, want) in expected {
        // A JSON pointer reaches into nested figures (`/risk/policies/1/replay/hours_mean`).
        if field.starts_with('/') {
            let got = actual
                .pointer(field)
                .unwrap_or_else(|| panic!("{ctx}: no {field}"));
            match (got.as_f64(), want.as_f64()) {
                (Some(g), Some(w)) => {
                    assert!((g - w).abs() < 1e-4, "{ctx}: {field} = {g}, want {w}")
                }
                _ => assert_eq!(got, want, "{ctx}: {field}"),
            }
            continue;
        }
        match field.as_str() {
            "reasons" | "flags" => {
                let got: Vec<String> = actual[field]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|r| r["rule"].as_str().unwrap().to_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                for rule in want.as_array().unwrap() {
                    assert!(
                        got.iter().any(|g| g == rule.as_str().unwrap()),
                        "{ctx}: {field} lack {rule}: {got:?}"
                    );
                }
                if field == "reasons" {
                    assert_eq!(
                        got.len(),
                        want.as_array().unwrap().len(),
                        "{ctx}: reasons {got:?}"
                    );
                }
            }
            "rent" | "storage" | "egress" | "time_cost" | "risk_cost" | "total_expected"
            | "total_p90" => {
                assert_eq!(
                    actual[field]["amount"].as_str().unwrap(),
                    want.as_str().unwrap(),
                    "{ctx}: {field}"
                );
            }
            _ if want.is_number() => {
                let got = actual[field]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{ctx}: no number {field}"));
                assert!(
                    (got - want.as_f64().unwrap()).abs() < 1e-4,
                    "{ctx}: {field} = {got}, want {want}"
                );
            }
            _ => assert_eq!(&actual[field], want, "{ctx}: {field}"),
        }
    }
}

fn run(scenario: &Scenario) -> PlanResult {
    let catalog = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: scenario.offers.clone(),
    };
    plan_with_traces(
        &scenario.task,
        &catalog,
        &scenario.traces,
        &scenario.settings,
    )
    .unwrap_or_else(|e| panic!("{}: {e}", scenario.name))
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn golden_plans_match_hand_arithmetic() {
    let golden: Golden = serde_json::from_str(GOLDEN).expect("tests/golden/plans.json parses");
    assert!(golden.scenarios.len() >= 15);
    for s in &golden.scenarios {
        let result = run(s);
        let e = &s.expect;
        if let Some(choice) = &e.choice {
            assert_eq!(
                &json_id(&result.decision.choice),
                choice,
                "{}: choice",
                s.name
            );
        }
        if let Some(id) = &e.recommended {
            assert_eq!(
                result.decision.recommended_offer.as_ref(),
                Some(id),
                "{}: recommended",
                s.name
            );
        }
        if let Some(ranking) = &e.ranking {
            let got: Vec<&str> = result.options.iter().map(|o| o.offer_id.as_str()).collect();
            assert_eq!(&got, ranking, "{}: ranking", s.name);
        }
        if let Some(reasons) = &e.reasons {
            let got: Vec<String> = result
                .decision
                .reasons
                .iter()
                .map(|r| json_id(&r.rule))
                .collect();
            assert_eq!(&got, reasons, "{}: decision reasons", s.name);
        }
        if let Some(phases) = &e.hybrid {
            let plan = result
                .hybrid
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no hybrid plan", s.name));
            let got: Vec<(String, String, String)> = plan
                .phases
                .iter()
                .map(|p| {
                    (
                        json_id(&p.phase),
                        p.offer_id.clone().unwrap_or_default(),
                        p.cost.plain(),
                    )
                })
                .collect();
            assert_eq!(&got, phases, "{}: hybrid phases", s.name);
        }
        for (id, expected) in &e.options {
            let option = result
                .options
                .iter()
                .find(|o| &o.offer_id == id)
                .unwrap_or_else(|| panic!("{}: no {id}", s.name));
            check_option(&s.name, option, expected);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn every_total_is_the_sum_of_its_parts() {
    let golden: Golden = serde_json::from_str(GOLDEN).unwrap();
    for s in &golden.scenarios {
        for o in run(s).options {
            let sum = o.costs.rent.amount
                + o.costs.storage.amount
                + o.costs.egress.amount
                + o.costs.time_cost.amount
                + o.costs.risk_cost.amount;
            assert_eq!(
                sum, o.costs.total_expected.amount,
                "{} / {}",
                s.name, o.offer_id
            );
        }
    }
}
