//! The plan's lookups are indexed (issue 34, item 4): the offer a policy falls back to, found
//! through the context's index, is the one a scan of the whole catalog finds, for catalogs of
//! many offers of the same capacity over many regions; and pricing such a catalog grows about
//! linearly (checked by count of work, not by time: timings live in `cargo xtask bench`).
#![cfg(not(target_arch = "wasm32"))]

use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::Offer;
use gpufare_core::plan::context::Context;
use gpufare_core::plan::policy::fallback_for;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::task::presets::preset;
use proptest::prelude::*;
use rust_decimal::Decimal;

/// The rule as a scan states it: a named fallback that is never interrupted, else the cheapest
/// pay-as-you-go, never-interrupted offer of the same provider, GPU, count, tenancy and share,
/// in the same region first, ties by id.
fn scanned<'a>(ctx: &Context<'a>, offer: &Offer) -> Option<&'a Offer> {
    let steady = |o: &&Offer| {
        o.id != offer.id && !o.interruptions.interrupts() && ctx.trace_for(o).is_none()
    };
    if let Some(id) = &offer.interruptions.fallback {
        return ctx.offers.iter().filter(steady).find(|o| &o.id == id);
    }
    ctx.offers
        .iter()
        .filter(steady)
        .filter(|o| {
            o.billing_mode == BillingMode::PayAsYouGo
                && o.provider == offer.provider
                && o.gpu == offer.gpu
                && o.gpu_count == offer.gpu_count
                && o.tenancy == offer.tenancy
                && o.gpu_fraction == offer.gpu_fraction
        })
        .min_by(|a, b| {
            (a.region.id != offer.region.id)
                .cmp(&(b.region.id != offer.region.id))
                .then(ctx.price_per_gpu_hour(a).cmp(&ctx.price_per_gpu_hour(b)))
                .then(a.id.cmp(&b.id))
        })
}

/// Copies of the default catalog's A10G pay-as-you-go and spot rows, one per zone: `regions`
/// regions, prices drawn from `prices` (equal prices included), some spot rows naming a fallback.
fn zones(prices: &[u8], regions: u8, named: &[bool]) -> Vec<Offer> {
    let base = &default_catalog().offers;
    let payg = base.iter().find(|o| o.id == "aws-use1-g5xl-payg").unwrap();
    let spot = base.iter().find(|o| o.id == "aws-use1-g5xl-spot").unwrap();
    let mut offers: Vec<Offer> = prices
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut o = if i % 2 == 0 {
                payg.clone()
            } else {
                spot.clone()
            };
            o.id = format!("z{i}");
            o.region.id = format!("r{}", i as u8 % regions.max(1));
            o.price = Decimal::from(u32::from(*p % 7) + 1) / Decimal::from(10);
            o
        })
        .collect();
    for (i, name) in named.iter().enumerate() {
        let at = 2 * i + 1;
        if *name && at < offers.len() {
            offers[at].interruptions.fallback = Some(format!("z{}", (i * 3) % offers.len()));
        }
    }
    offers
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_indexed_fallback_is_the_scanned_one(
        prices in prop::collection::vec(any::<u8>(), 1..120),
        regions in 1u8..6,
        named in prop::collection::vec(any::<bool>(), 0..20),
    ) {
        let offers = zones(&prices, regions, &named);
        let task = preset("qlora_7b").unwrap();
        let settings = PlanSettings::default();
        let ctx = Context::new(&task, &settings).with_evidence(&offers, &[]);
        for offer in &offers {
            let got = fallback_for(&ctx, offer).map(|o| o.id.as_str());
            let want = scanned(&ctx, offer).map(|o| o.id.as_str());
            prop_assert_eq!(got, want, "offer {}", offer.id);
        }
    }
}
