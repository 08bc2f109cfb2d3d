//! A scenario, as a saved file and as a share-link fragment; priced when it parses, whole and in
//! shares (as the site's plan workers do), which must agree. A scenario followed by a line of `---`
//! and priced shares (what a helper worker answers) is put together into a plan.
#![no_main]

use gpufare_core::plan::share::{PricedShare, Share};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::scenario::document::parse_scenario;
use gpufare_core::scenario::share::{decode_share, encode_share};
use gpufare_fuzz::{quick, small_catalog, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    let catalog = small_catalog();
    let mut any = false;
    for parsed in [parse_scenario(&input), decode_share(&input)] {
        if let Ok(mut scenario) = parsed {
            any = true;
            scenario.settings = quick(scenario.settings.clone());
            let whole = scenario.plan(&catalog);
            // What a share link writes, it reads back.
            assert!(decode_share(&encode_share(&scenario)).is_ok());
            let count = 3;
            let shares: Result<Vec<PricedShare>, _> = (0..count)
                .map(|index| scenario.price_share(&catalog, Share { index, count }))
                .collect();
            match (whole, shares) {
                (Ok(whole), Ok(shares)) => {
                    let put = scenario.plan_from_shares(&catalog, shares);
                    assert_eq!(
                        serde_json::to_string(&put.ok()).ok(),
                        serde_json::to_string(&Some(whole)).ok(),
                        "a plan put together from shares is the whole plan"
                    );
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "shares fail as the whole plan does"),
                (a, b) => panic!("whole {:?}, shares {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
    // A scenario, a line of `---`, and the shares a helper worker might answer for it.
    if !any
        && let Some((scenario, shares)) = input.split_once("\n---\n")
        && let Ok(mut scenario) = parse_scenario(scenario)
        && let Ok(shares) = serde_json::from_str::<Vec<PricedShare>>(shares)
    {
        scenario.settings = quick(scenario.settings.clone());
        let _ = scenario.plan_from_shares(default_catalog(), shares);
    }
});
