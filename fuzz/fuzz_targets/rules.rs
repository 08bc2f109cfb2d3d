//! A fleet rules file: the first byte picks the name (even: TOML, odd: JSON), the rest is the
//! text; rules that parse then judge a small fleet.
#![no_main]

use gpufare_core::fleet::{parse_fleet, parse_rules, report};
use gpufare_fuzz::text;
use libfuzzer_sys::fuzz_target;

const FLEET: &str = include_str!("../../tests/profiles/dedicated-h100.json");

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let name = if first % 2 == 0 {
        "rules.toml"
    } else {
        "rules.json"
    };
    if let Ok(rules) = parse_rules(name, &text(rest)) {
        let fleet = parse_fleet("one.json", FLEET);
        let _ = report(&fleet.nodes, &rules);
    }
});
