//! The hand-worked pay-as-you-go rows in `tests/golden/rent.json`, run natively and in wasm32.
//!
//! The same file compiles for both targets; on wasm32 it runs under wasm-bindgen-test in headless
//! Chromium, which proves the site computes what the CLI computes.

use gpufare_core::offers::billing::parse_run_hours;
use gpufare_core::{
    BillingError, Currency, Granularity, PayAsYouGo, RentQuote, pay_as_you_go_rent,
};
use serde::Deserialize;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("../../tests/golden/rent.json");

#[derive(Deserialize)]
struct Golden {
    rows: Vec<Row>,
    errors: Vec<ErrorRow>,
}

#[derive(Deserialize)]
struct Input {
    name: String,
    hours: String,
    price_per_hour: String,
    currency: String,
    granularity: String,
    minimum_minutes: String,
}

#[derive(Deserialize)]
struct Row {
    #[serde(flatten)]
    input: Input,
    billed_seconds: u64,
    rent: String,
}

#[derive(Deserialize)]
struct ErrorRow {
    #[serde(flatten)]
    input: Input,
    field: String,
    code: String,
}

fn price(input: &Input) -> Result<RentQuote, BillingError> {
    let currency = Currency::from_code(&input.currency).expect("known currency");
    let granularity = Granularity::from_id(&input.granularity).expect("known granularity");
    let hours = parse_run_hours(&input.hours)?;
    let plan = PayAsYouGo::parse(
        &input.price_per_hour,
        currency,
        granularity,
        &input.minimum_minutes,
    )?;
    pay_as_you_go_rent(hours, &plan)
}

fn golden() -> Golden {
    serde_json::from_str(GOLDEN).expect("tests/golden/rent.json parses")
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn golden_rent_rows_match_hand_arithmetic() {
    let golden = golden();
    assert!(golden.rows.len() >= 10);
    for row in &golden.rows {
        let quote = price(&row.input).unwrap_or_else(|e| panic!("{}: {e}", row.input.name));
        assert_eq!(
            quote.billed_seconds, row.billed_seconds,
            "{}",
            row.input.name
        );
        assert_eq!(quote.rent.plain(), row.rent, "{}", row.input.name);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn golden_rent_errors_name_field_and_reason() {
    let golden = golden();
    assert!(!golden.errors.is_empty());
    for row in &golden.errors {
        let err = price(&row.input).expect_err(&row.input.name);
        assert_eq!(err.field(), row.field, "{}", row.input.name);
        assert_eq!(err.reason().code(), row.code, "{}", row.input.name);
    }
}
