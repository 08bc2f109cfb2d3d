//! The budget exports: JSON round trips with cent amounts, CSV with raw numbers and its basis,
//! Markdown, and the difference between two budgets.

use gpufare_core::Currency;
use gpufare_core::export::budget::{Budget, BudgetError, budget, budget_json, parse_budget};
use gpufare_core::export::csv::budget_csv;
use gpufare_core::export::diff::{diff, diff_text};
use gpufare_core::export::markdown::budget_markdown;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::{PlanSettings, plan};
use gpufare_core::task::presets::preset;

mod common;
use common::budget_csv_records;

fn sample() -> Budget {
    let task = preset("qlora_7b").unwrap();
    let settings = PlanSettings {
        trials: 200,
        ..PlanSettings::default()
    };
    budget(
        &plan(&task, default_catalog(), &settings).unwrap(),
        &task,
        default_catalog(),
    )
}

#[test]
fn json_round_trips_and_numbers_are_cents() {
    let b = sample();
    let text = budget_json(&b);
    assert!(text.starts_with("{\n  \"format_version\": 1,"));
    assert_eq!(parse_budget(&text).unwrap(), b);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = &v["options"][0];
    assert!(first["total_expected"].is_number() && first["rent"].is_number());
    let sum: f64 = ["rent", "storage", "egress", "time_cost", "risk_cost"]
        .iter()
        .map(|k| first[k].as_f64().unwrap())
        .sum();
    assert!((sum - first["total_expected"].as_f64().unwrap()).abs() < 0.005);
    assert!(matches!(
        parse_budget("{\"format_version\": 5}"),
        Err(BudgetError::UnsupportedFormat { found: 5, .. })
    ));
}

#[test]
fn csv_has_raw_numbers_and_states_its_basis() {
    let b = sample();
    let written = budget_csv(&b);
    let (text, records) = budget_csv_records(&written);
    assert!(text.starts_with("# gpufare budget"));
    assert!(text.contains("# price dates: "));
    assert!(text.contains("# assumption cny_per_usd = 7.2"));
    let first = &records[0];
    let total: f64 = first[18].parse().unwrap();
    assert!(
        (total - b.options[0].total_expected).abs() < 0.001,
        "{} vs {}",
        &first[18],
        b.options[0].total_expected
    );
    assert!(!first[18].contains(','));
}

#[test]
fn markdown_and_diff_describe_changes() {
    let old = sample();
    let md = budget_markdown(&old, 5);
    assert!(md.contains("## Ranked options") && md.contains("Prices as of"));
    let mut new = old.clone();
    new.options[0].total_expected += 10.0;
    new.decision.recommended_offer = Some("x".into());
    let d = diff(&old, &new);
    assert_eq!(d.changes.len(), 1);
    assert_eq!(d.changes[0].total_change, Some(10.0));
    let text = diff_text(&d, Currency::Cny);
    assert!(
        text.contains("recommendation: ") && text.contains("(+10.00 CNY)"),
        "{text}"
    );
    assert!(diff(&old, &old).changes.is_empty());
}
