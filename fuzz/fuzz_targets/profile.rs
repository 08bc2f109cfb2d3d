//! A probe profile: parsed, analysed, turned into the factors a plan uses.
#![no_main]

use gpufare_core::profile::document::parse_profile;
use gpufare_core::profile::evidence::measured_factors;
use gpufare_core::profile::figures::machine_figures;
use gpufare_core::profile::verdicts::analyse;
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(profile) = parse_profile(&text(data)) {
        let _ = analyse(&profile);
        let _ = machine_figures(&profile);
        let _ = measured_factors(&profile);
    }
});
