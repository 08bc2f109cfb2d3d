//! A scenario, as a saved file and as a share-link fragment; priced when it parses, whole and in
//! shares (as the site's plan workers do), which must agree. Input that is not a scenario is also
//! read as priced shares (what a helper worker answers) and put together into a plan.
#![no_main]

use gpufare_core::plan::share::{PricedShare, Share};
use gpufare_core::scenario::document::{Scenario, parse_scenario};
use gpufare_core::scenario::share::{decode_share, encode_share};
use gpufare_core::task::presets::preset;
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
    if !any
        && let Ok(shares) = serde_json::from_str::<Vec<PricedShare>>(&input)
        && let Some(task) = preset("code_check")
    {
        let mut scenario = Scenario::new(task, Some("code_check"));
        scenario.settings = quick(scenario.settings.clone());
        let _ = scenario.plan_from_shares(&catalog, shares);
    }
});
