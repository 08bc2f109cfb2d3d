//! A scenario, as a saved file and as a share-link fragment; priced when it parses.
#![no_main]

use gpufare_core::scenario::document::parse_scenario;
use gpufare_core::scenario::share::{decode_share, encode_share};
use gpufare_fuzz::{quick, small_catalog, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = text(data);
    for parsed in [parse_scenario(&input), decode_share(&input)] {
        if let Ok(mut scenario) = parsed {
            scenario.settings = quick(scenario.settings.clone());
            let _ = scenario.plan(&small_catalog());
            // What a share link writes, it reads back.
            assert!(decode_share(&encode_share(&scenario)).is_ok());
        }
    }
});
