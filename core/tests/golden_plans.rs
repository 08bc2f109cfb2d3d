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
use gpufare_core::serving::service::plan_service;
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
    /// A service task's deployments per offer (kind -> figures) and the choice across offers.
    service: Option<ServiceExpect>,
}

#[derive(Deserialize)]
struct ServiceExpect {
    choice: BTreeMap<String, Value>,
    offers: BTreeMap<String, BTreeMap<String, BTreeMap<String, Value>>>,
}

/// Whether a figure of the plan matches the hand-worked one: strings and integers exactly, a
/// money object by its amount's value, other numbers within a relative 1e-6, arrays and objects
/// element by element.
fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::String(w)) if g.contains_key("amount") => {
            let amount = |v: &str| rust_decimal::Decimal::from_str_exact(v).ok();
            g["amount"]
                .as_str()
                .and_then(amount)
                .is_some_and(|g| Some(g) == amount(w))
        }
        (Value::Number(g), Value::Number(w)) if !(g.is_f64() || w.is_f64()) => g == w,
        (Value::Number(g), Value::Number(w)) => {
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            (g - w).abs() <= 1e-6 * w.abs().max(1.0)
        }
        (Value::Array(g), Value::Array(w)) => {
            g.len() == w.len() && g.iter().zip(w).all(|(g, w)| same(g, w))
        }
        (Value::Object(g), Value::Object(w)) => {
            w.iter().all(|(k, w)| g.get(k).is_some_and(|g| same(g, w)))
        }
        _ => got == want,
    }
}

fn check_service(scenario: &Scenario, result: &PlanResult, want: &ServiceExpect) {
    let catalog = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: scenario.offers.clone(),
    };
    let plan = plan_service(&scenario.task, &catalog, result)
        .unwrap_or_else(|| panic!("{}: no service plan", scenario.name));
    let plan = serde_json::to_value(&plan).unwrap();
    let name = &scenario.name;
    for (field, w) in &want.choice {
        let got = &plan["choice"][field];
        assert!(same(got, w), "{name}: choice.{field} = {got}, want {w}");
    }
    let offers = plan["offers"].as_array().unwrap();
    let ids: Vec<&str> = offers
        .iter()
        .map(|o| o["offer_id"].as_str().unwrap())
        .collect();
    let mut want_ids: Vec<&str> = want.offers.keys().map(String::as_str).collect();
    let mut got_ids = ids.clone();
    got_ids.sort_unstable();
    want_ids.sort_unstable();
    assert_eq!(got_ids, want_ids, "{name}: offers priced");
    for (id, kinds) in &want.offers {
        let priced = offers
            .iter()
            .find(|o| o["offer_id"] == *id.as_str())
            .unwrap();
        let deployments = priced["deployments"].as_array().unwrap();
        let got_kinds: Vec<&str> = deployments
            .iter()
            .map(|d| d["kind"].as_str().unwrap())
            .collect();
        let want_kinds: Vec<&str> = kinds.keys().map(String::as_str).collect();
        let mut sorted = got_kinds.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, want_kinds, "{name} / {id}: ways to deploy");
        for (kind, fields) in kinds {
            let d = deployments
                .iter()
                .find(|d| d["kind"] == *kind.as_str())
                .unwrap();
            for (field, w) in fields {
                let got = &d[field];
                assert!(
                    same(got, w),
                    "{name} / {id} / {kind}: {field} = {got}, want {w}"
                );
            }
        }
    }
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
        if let Some(service) = &e.service {
            check_service(s, &result, service);
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
