//! Alibaba Cloud's instancePrice.json: mapped to offers, every offer valid and the catalog
//! readable back as our JSON form.
#![no_main]

use gpufare_core::offers::catalog::{catalog_to_json, parse_catalog_json};
use gpufare_core::offers::feeds::{FeedContext, alibaba};
use gpufare_core::offers::validate::validate_offer;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ctx = FeedContext::fetched(alibaba::PRICE_FILE_URL, "2026-12-05");
    if let Ok(out) = alibaba::import(&text(data), &ctx) {
        for o in &out.catalog.offers {
            assert!(validate_offer(o).is_ok(), "{}", o.id);
        }
        if !out.catalog.offers.is_empty() {
            parse_catalog_json(&catalog_to_json(&out.catalog)).expect("reads back");
        }
    }
});
