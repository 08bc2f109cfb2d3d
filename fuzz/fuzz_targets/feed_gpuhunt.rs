//! A gpuhunt catalog CSV; the first byte picks the provider (AWS rows meet the Local Zone rule,
//! RunPod's the one-price note). Mapped to offers, every offer valid and the catalog readable
//! back as our JSON form.
#![no_main]

use gpufare_core::offers::catalog::{catalog_to_json, parse_catalog_json};
use gpufare_core::offers::feeds::{FeedContext, gpuhunt};
use gpufare_core::offers::validate::validate_offer;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let provider = gpuhunt::PROVIDERS[usize::from(pick) % gpuhunt::PROVIDERS.len()];
    let ctx = FeedContext::fetched(gpuhunt::CATALOG_BASE, "2026-12-05");
    if let Ok(out) = gpuhunt::import(&text(rest), provider, Some("20251203-1"), &ctx) {
        for o in &out.catalog.offers {
            assert!(validate_offer(o).is_ok(), "{}", o.id);
        }
        if !out.catalog.offers.is_empty() {
            parse_catalog_json(&catalog_to_json(&out.catalog)).expect("reads back");
        }
    }
});
