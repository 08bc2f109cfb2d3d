//! A page of the Azure Retail Prices API: read, mapped to offers, every offer valid and the
//! catalog readable back as our JSON form.
#![no_main]

use gpufare_core::offers::catalog::{catalog_to_json, parse_catalog_json};
use gpufare_core::offers::feeds::{FeedContext, FeedImport, azure};
use gpufare_core::offers::validate::validate_offer;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fn check(out: &FeedImport) {
    for o in &out.catalog.offers {
        assert!(validate_offer(o).is_ok(), "{}", o.id);
    }
    if !out.catalog.offers.is_empty() {
        parse_catalog_json(&catalog_to_json(&out.catalog)).expect("reads back");
    }
}

fuzz_target!(|data: &[u8]| {
    let ctx = FeedContext::fetched(azure::API_URL, "2026-12-05");
    if let Ok(page) = azure::parse_page(&text(data)) {
        let out = azure::import(&page.items, page.currency.as_deref(), &ctx).expect("a valid day");
        check(&out);
    }
});
