//! A plan priced in shares (one per Web Worker on the site) and put together is the plan priced
//! at once, to the bit, whatever the number of shares; shares that do not make up the catalog
//! are refused with the offer at fault named.

use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::trace::{AttachedTrace, parse_trace};
use gpufare_core::plan::share::{PricedShare, Share};
use gpufare_core::plan::{PlanError, ShareMismatch};
use gpufare_core::scenario::document::Scenario;
use gpufare_core::task::presets::preset;

fn scenario(name: &str, trials: u32) -> Scenario {
    let mut s = Scenario::new(preset(name).expect("a built-in preset"), Some(name));
    s.settings.trials = trials;
    s
}

fn shares(s: &Scenario, count: u32) -> Vec<PricedShare> {
    (0..count)
        .map(|index| {
            s.price_share(default_catalog(), Share { index, count })
                .expect("a share is priced")
        })
        .collect()
}

fn with_trace(mut s: Scenario) -> Scenario {
    s.traces.push(AttachedTrace {
        offer_id: "aws-use1-g5xl-spot".to_owned(),
        trace: parse_trace(
            "us-east-1c.json",
            include_str!(
                "../../tests/fixtures/traces/aws-2023-04-22-us-east-1c-p3.2xlarge-v100.json"
            ),
        )
        .expect("the fixture parses"),
    });
    s
}

#[test]
fn any_number_of_shares_gives_the_whole_plan() {
    let mut cases: Vec<Scenario> = ["qlora_7b", "code_check", "full_finetune_multi_gpu"]
        .into_iter()
        .map(|name| scenario(name, 400))
        .collect();
    cases.push(with_trace(scenario("qlora_7b", 400)));
    let mut hours = scenario("qlora_7b", 400);
    hours.task.work_hours = 30.0;
    cases.push(hours);
    for s in cases {
        let whole = s.plan(default_catalog()).expect("plans");
        assert!(
            whole.options.iter().any(|o| o.policy.is_some()),
            "the case prices policies"
        );
        let offers = default_catalog().offers.len() as u32;
        for count in [1, 2, 3, 4, 7, offers, offers + 3] {
            let parts = shares(&s, count);
            let priced: usize = parts.iter().map(|p| p.priced.len()).sum();
            assert_eq!(priced, default_catalog().offers.len(), "{count} shares");
            // Put together in any order, through JSON as between workers.
            let mut parts: Vec<PricedShare> = parts
                .into_iter()
                .rev()
                .map(|p| {
                    serde_json::from_str(&serde_json::to_string(&p).expect("serialises"))
                        .expect("reads back")
                })
                .collect();
            parts.rotate_left(1);
            let put = s.plan_from_shares(default_catalog(), parts).expect("fits");
            assert_eq!(put, whole, "{count} shares");
        }
    }
}

#[test]
fn the_interruptible_offers_are_spread_over_the_shares() {
    let mut s = scenario("qlora_7b", 10);
    s.task.work_hours = 20.0;
    let walked = |share: &PricedShare| -> usize {
        share
            .priced
            .iter()
            .filter(|p| p.option.interruptions_expected > 0.5)
            .count()
    };
    let all = walked(&shares(&s, 1)[0]);
    assert!(all >= 6, "{all}");
    for count in [2, 3] {
        for share in shares(&s, count) {
            assert!(walked(&share) >= 1, "{count} shares");
            // The never-interrupted offers fill up the lighter shares.
            assert!(share.priced.len() > all / count as usize);
        }
    }
}

#[test]
fn shares_that_do_not_make_up_the_catalog_are_refused() {
    let s = scenario("code_check", 50);
    let catalog = default_catalog();
    let fails = |parts: Vec<PricedShare>| match s.plan_from_shares(catalog, parts) {
        Err(PlanError::Shares(m)) => m,
        other => panic!("not refused: {:?}", other.map(|p| p.options.len())),
    };
    let three = shares(&s, 3);
    let first_of_last = three[2].priced.iter().map(|p| p.place).min().unwrap();
    assert_eq!(
        fails(three[..2].to_vec()),
        ShareMismatch::Missing {
            place: first_of_last
        }
    );
    let mut again = three.clone();
    again.push(three[0].clone());
    assert_eq!(
        fails(again),
        ShareMismatch::Twice {
            place: three[0].priced[0].place
        }
    );
    let mut past = three.clone();
    past[1].priced[0].place = 10_000;
    assert_eq!(
        fails(past),
        ShareMismatch::PastTheEnd {
            place: 10_000,
            offers: catalog.offers.len()
        }
    );
    let mut other = three.clone();
    let place = other[0].priced[0].place;
    other[0].priced[0].option.offer_id = "not-an-offer".to_owned();
    assert_eq!(
        fails(other),
        ShareMismatch::OtherOffer {
            place,
            expected: catalog.offers[place].id.clone(),
            found: "not-an-offer".to_owned()
        }
    );
    for (index, count) in [(0, 0), (3, 3), (0, gpufare_core::plan::MAX_SHARES + 1)] {
        assert_eq!(
            s.price_share(catalog, Share { index, count }),
            Err(PlanError::Shares(ShareMismatch::NotAShare { index, count }))
        );
    }
    // An invalid scenario fails the same way in shares as whole.
    let mut bad = s.clone();
    bad.settings.trials = 0;
    assert_eq!(
        bad.price_share(catalog, Share { index: 0, count: 2 }).err(),
        bad.plan(catalog).err()
    );
}
