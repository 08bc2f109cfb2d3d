//! Age on every answer: each priced option carries its price's date, evidence and age counted to
//! the caller's today; a recommendation resting on an estimate or on a price more than
//! `STALE_PRICE_DAYS` old says so with that price's own figures; the budget exports carry the
//! same per row. Today is always fixed here: the model has no clock.

use gpufare_core::Currency;
use gpufare_core::export::budget::{budget, budget_json, parse_budget};
use gpufare_core::export::csv::budget_csv;
use gpufare_core::export::markdown::budget_markdown;
use gpufare_core::numbers::date::PriceDate;
use gpufare_core::numbers::problem::{FieldError, Problem};
use gpufare_core::offers::billing::BillingMode;
use gpufare_core::offers::catalog::{CATALOG_FORMAT_VERSION, Catalog};
use gpufare_core::offers::default::default_catalog;
use gpufare_core::offers::offer::{Offer, PriceEvidence};
use gpufare_core::offers::quote::Quote;
use gpufare_core::offers::tenancy::Tenancy;
use gpufare_core::plan::decision::price_caveat;
use gpufare_core::plan::option::STALE_PRICE_DAYS;
use gpufare_core::plan::reason::{Reason, RuleId};
use gpufare_core::plan::settings::{PlanError, PlanSettings};
use gpufare_core::plan::{PlanResult, plan};
use gpufare_core::scenario::document::{Scenario, parse_scenario};
use gpufare_core::scenario::share::{decode_share, encode_share};
use gpufare_core::task::presets::preset;
use rust_decimal::Decimal;

mod common;
use common::{budget_csv_records, column};

/// A whole RTX 4090 at `price` yuan an hour, quoted on `as_of`.
fn quote(id: &str, price: i64, as_of: &str) -> Offer {
    Quote {
        provider: "Test".into(),
        gpu: "RTX4090".into(),
        gpu_count: 1,
        interconnect: None,
        gpus_per_node: None,
        node_network_gbps: None,
        node_network_rdma: false,
        tenancy: Tenancy::Dedicated,
        billing_mode: BillingMode::PayAsYouGo,
        currency: Currency::Cny,
        price: Decimal::new(price, 2),
        vram_gib: None,
        as_of: as_of.into(),
    }
    .offer(id.into())
    .unwrap()
}

/// `offer` as an estimate derived by a stated rule.
fn estimated(mut offer: Offer) -> Offer {
    offer.estimate = true;
    offer.price_evidence = Some(PriceEvidence::Estimate);
    offer.estimate_note = Some("list price of a similar card".into());
    offer
}

fn settings(today: Option<&str>) -> PlanSettings {
    PlanSettings {
        trials: 200,
        today: today.map(str::to_owned),
        ..PlanSettings::default()
    }
}

fn plan_on(offers: Vec<Offer>, today: Option<&str>) -> PlanResult {
    let task = preset("sd_trial").unwrap();
    let catalog = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers,
    };
    plan(&task, &catalog, &settings(today)).unwrap()
}

fn caveat(p: &PlanResult) -> Option<&Reason> {
    p.decision
        .reasons
        .iter()
        .find(|r| r.rule == RuleId::PriceCaveat)
}

/// Two quotes: the cheaper one from `cheap_as_of`, the dearer one from November 2026.
fn two(cheap: Offer) -> Vec<Offer> {
    vec![cheap, quote("dear", 300, "2026-11")]
}

#[test]
fn every_option_carries_its_prices_date_evidence_and_age() {
    let p = plan_on(two(quote("cheap", 200, "2026-06-01")), Some("2026-12-05"));
    assert_eq!(p.settings.today.as_deref(), Some("2026-12-05"));
    let cheap = p.options.iter().find(|o| o.offer_id == "cheap").unwrap();
    let dear = p.options.iter().find(|o| o.offer_id == "dear").unwrap();
    assert_eq!(cheap.price.price_as_of, "2026-06-01");
    assert_eq!(cheap.price.price_evidence, Some(PriceEvidence::Quote));
    assert!(!cheap.price.price_is_estimate);
    // June has 30 days: 29 + 31 + 31 + 30 + 31 + 30 + 5 = 187.
    assert_eq!(cheap.price.price_age_days, Some(187));
    // A month counts from its first day.
    assert_eq!(dear.price.price_age_days, Some(34));

    // Without today: dates and evidence, no age, and only small fields written.
    let p = plan_on(two(quote("cheap", 200, "2026-06-01")), None);
    assert!(p.options.iter().all(|o| o.price.price_age_days.is_none()));
    let json = serde_json::to_value(&p.options[0]).unwrap();
    assert_eq!(json["price_as_of"], "2026-06-01");
    assert_eq!(json["price_evidence"], "quote");
    assert!(json.get("price_age_days").is_none() && json.get("price_is_estimate").is_none());
    assert!(
        serde_json::to_value(&p.settings)
            .unwrap()
            .get("today")
            .is_none()
    );
}

#[test]
fn an_old_recommended_price_says_how_old_with_its_own_figures() {
    let p = plan_on(two(quote("cheap", 200, "2026-06-01")), Some("2026-12-05"));
    assert_eq!(p.decision.recommended_offer.as_deref(), Some("cheap"));
    let r = caveat(&p).expect("a caveat on a 187-day-old price");
    assert_eq!(r.params["offer"], "cheap");
    assert_eq!(r.params["as_of"], "2026-06-01");
    assert_eq!(r.params["age_days"], "187");
    assert_eq!(r.params["evidence"], "quote");
    assert_eq!(r.params["stale_after_days"], STALE_PRICE_DAYS.to_string());
    assert!(!r.params.contains_key("estimate"));
    assert_eq!(
        r.english(),
        "the price is 187 days old (2026-06-01, evidence: quote; over 180 days): check it before \
         committing"
    );
    // The caveat is the last reason: the rules that decided come first.
    assert_eq!(p.decision.reasons.last(), Some(r));
}

#[test]
fn the_threshold_is_more_than_180_days() {
    assert_eq!(STALE_PRICE_DAYS, 180);
    // 2026-06-01 + 180 days = 2026-11-28.
    let at = plan_on(two(quote("cheap", 200, "2026-06-01")), Some("2026-11-28"));
    assert_eq!(at.options[0].price.price_age_days, Some(180));
    assert!(caveat(&at).is_none(), "180 days is not more than 180");
    let past = plan_on(two(quote("cheap", 200, "2026-06-01")), Some("2026-11-29"));
    assert_eq!(past.options[0].price.price_age_days, Some(181));
    assert_eq!(caveat(&past).unwrap().params["age_days"], "181");
    // A price dated after today is 0 days old, never negative, and needs no caveat.
    let early = plan_on(two(quote("cheap", 200, "2026-06-01")), Some("2026-05-01"));
    assert_eq!(early.options[0].price.price_age_days, Some(0));
    assert!(caveat(&early).is_none());
}

#[test]
fn an_estimate_says_so_with_or_without_today() {
    let fresh = estimated(quote("cheap", 200, "2026-12-01"));
    let p = plan_on(two(fresh.clone()), Some("2026-12-05"));
    let r = caveat(&p).expect("a caveat on an estimate");
    assert_eq!(r.params["estimate"], "true");
    assert_eq!(r.params["evidence"], "estimate");
    assert_eq!(r.params["age_days"], "4");
    assert!(!r.params.contains_key("stale_after_days"));
    assert_eq!(
        r.english(),
        "the price is an estimate (2026-12-01, 4 days old): ask the provider for a quote before \
         committing"
    );
    // Without today there is no age to give, but an estimate is still one.
    let p = plan_on(two(fresh), None);
    let r = caveat(&p).expect("a caveat on an estimate without today");
    assert!(!r.params.contains_key("age_days"));
    assert!(
        r.english().contains("an estimate (2026-12-01):"),
        "{}",
        r.english()
    );
    // Old and estimated: both said.
    let p = plan_on(
        two(estimated(quote("cheap", 200, "2025-11"))),
        Some("2026-12-05"),
    );
    let r = caveat(&p).unwrap();
    assert_eq!(
        (r.params["estimate"].as_str(), r.params["age_days"].as_str()),
        ("true", "399")
    );
    assert!(
        r.english()
            .contains("an estimate, 399 days old (2025-11; over 180 days)"),
        "{}",
        r.english()
    );
}

#[test]
fn a_fresh_stated_price_and_an_old_price_not_recommended_need_no_caveat() {
    // The old price is the dearer offer's: nothing to say about the recommendation.
    let p = plan_on(
        vec![
            quote("cheap", 200, "2026-12-01"),
            estimated(quote("dear", 300, "2024-01")),
        ],
        Some("2026-12-05"),
    );
    assert_eq!(p.decision.recommended_offer.as_deref(), Some("cheap"));
    assert!(caveat(&p).is_none());
    // No feasible offer: no recommendation, no caveat.
    let mut task = preset("sd_trial").unwrap();
    task.vram_gib = 500.0;
    let catalog = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers: vec![estimated(quote("cheap", 200, "2024-01"))],
    };
    let p = plan(&task, &catalog, &settings(Some("2026-12-05"))).unwrap();
    assert!(p.decision.recommended_offer.is_none() && caveat(&p).is_none());
}

/// The caveat follows the recommended offer, not the cheapest: a task with a prototype phase puts
/// the main work on the best dedicated offer however cheap the shared one is.
#[test]
fn the_caveat_is_about_the_recommended_offer_not_the_cheapest() {
    let task = preset("qlora_7b").unwrap();
    let today = Some("2026-12-05");
    let shared = |as_of: &str| Offer {
        tenancy: Tenancy::MemCappedContainer,
        ..quote("shared", 50, as_of)
    };
    let with = |shared: Offer, dedicated: Offer| {
        let catalog = Catalog {
            format_version: CATALOG_FORMAT_VERSION,
            offers: vec![shared, dedicated],
        };
        plan(&task, &catalog, &settings(today)).unwrap()
    };
    let p = with(
        estimated(shared("2024-01")),
        quote("dedicated", 4000, "2026-12-01"),
    );
    assert_eq!(
        p.options[0].offer_id, "shared",
        "the shared offer is the cheapest"
    );
    assert_eq!(p.decision.recommended_offer.as_deref(), Some("dedicated"));
    assert!(
        caveat(&p).is_none(),
        "the old estimate is the cheapest's, not the recommendation's"
    );
    let p = with(
        shared("2026-12-01"),
        estimated(quote("dedicated", 4000, "2024-01")),
    );
    assert_eq!(p.decision.recommended_offer.as_deref(), Some("dedicated"));
    let r = caveat(&p).expect("the recommendation's own price is old and estimated");
    assert_eq!(r.params["offer"], "dedicated");
    assert_eq!(r.params["as_of"], "2024-01");
}

/// On the default catalog, for every preset and several days: the caveat is there exactly when
/// the recommended option's own price needs it, and every figure it gives is that option's.
#[test]
fn a_caveat_never_claims_what_the_options_own_price_contradicts() {
    let catalog = default_catalog();
    for today in [
        None,
        Some("2026-01-15"),
        Some("2026-12-05"),
        Some("2028-02-29"),
    ] {
        for id in [
            "course_project",
            "sd_trial",
            "qlora_7b",
            "full_finetune_multi_gpu",
            "inference_api",
            "code_check",
        ] {
            let task = preset(id).unwrap();
            let s = PlanSettings {
                currency: task.currency,
                ..settings(today)
            };
            let p = plan(&task, catalog, &s).unwrap();
            let day = today.map(|t| PriceDate::parse(t).unwrap());
            for o in &p.options {
                let offer = catalog.offers.iter().find(|x| x.id == o.offer_id).unwrap();
                assert_eq!(o.price.price_as_of, offer.as_of);
                assert_eq!(o.price.price_evidence, offer.evidence());
                assert_eq!(o.price.price_is_estimate, offer.estimate);
                assert_eq!(
                    o.price.price_age_days,
                    day.map(|d| offer.price_date().unwrap().age_days(d))
                );
            }
            let recommended = p
                .decision
                .recommended_offer
                .as_ref()
                .and_then(|r| p.options.iter().find(|o| &o.offer_id == r));
            let found = caveat(&p);
            match recommended {
                Some(o) => {
                    let needs = o.price.price_is_estimate
                        || o.price.price_age_days.is_some_and(|a| a > STALE_PRICE_DAYS);
                    assert_eq!(found.is_some(), needs, "{id} {today:?}");
                    assert_eq!(found, price_caveat(o).as_ref());
                    if let Some(r) = found {
                        assert_eq!(r.params["offer"], o.offer_id);
                        assert_eq!(r.params["as_of"], o.price.price_as_of);
                        assert_eq!(
                            r.params.get("age_days"),
                            o.price.price_age_days.map(|a| a.to_string()).as_ref()
                        );
                        assert_eq!(
                            r.params.get("evidence").map(String::as_str),
                            o.price.price_evidence.map(|e| e.id())
                        );
                        assert_eq!(r.params.contains_key("estimate"), o.price.price_is_estimate);
                    }
                }
                None => assert!(found.is_none()),
            }
        }
    }
}

#[test]
fn a_malformed_today_is_refused_by_name_and_old_scenarios_still_load() {
    let task = preset("sd_trial").unwrap();
    for bad in [
        "2026-13-01",
        "2026-02-30",
        "05/12/2026",
        "2026-12",
        "today",
        "",
    ] {
        assert_eq!(
            plan(&task, default_catalog(), &settings(Some(bad))),
            Err(PlanError::Setting(FieldError::new(
                "today",
                Problem::NotADate {
                    value: bad.to_owned()
                }
            ))),
            "{bad:?}"
        );
    }
    // A scenario written before `today` existed loads, and one with it travels in a share link.
    let old = r#"{"format_version": 1, "task": TASK,
        "settings": {"currency": "CNY", "cny_per_usd": "7.2", "seed": 1, "trials": 200}}"#
        .replace("TASK", &serde_json::to_string(&task).unwrap());
    let mut s: Scenario = parse_scenario(&old).unwrap();
    assert_eq!(s.settings.today, None);
    s.settings.today = Some("2026-12-05".into());
    assert_eq!(decode_share(&encode_share(&s)).unwrap(), s);
    s.settings.today = Some("2026-12-5".into());
    assert!(parse_scenario(&serde_json::to_string(&s).unwrap()).is_err());
}

#[test]
fn the_budget_and_its_csv_and_markdown_mark_each_rows_price() {
    let task = preset("sd_trial").unwrap();
    let offers = vec![
        quote("cheap", 200, "2026-06-01"),
        estimated(quote("dear", 300, "2026-11")),
    ];
    let catalog = Catalog {
        format_version: CATALOG_FORMAT_VERSION,
        offers,
    };
    let p = plan(&task, &catalog, &settings(Some("2026-12-05"))).unwrap();
    let b = budget(&p, &task, &catalog);
    assert_eq!(b.today.as_deref(), Some("2026-12-05"));
    let row = |id: &str| b.options.iter().find(|r| r.offer_id == id).unwrap();
    assert_eq!(row("cheap").price_age_days, Some(187));
    assert_eq!(row("cheap").price_evidence.as_deref(), Some("quote"));
    assert_eq!(row("cheap").price_source, "added by the user");
    assert!(!row("cheap").price_is_estimate && row("dear").price_is_estimate);
    assert_eq!(
        row("cheap").price_standing(),
        "2026-06-01, 187 days old, quote, over 180 days"
    );
    assert_eq!(
        row("dear").price_standing(),
        "2026-11, 34 days old, estimate"
    );
    assert!(b.decision.reasons.iter().any(|r| r.rule == "price_caveat"
        && r.params["age_days"] == "187"
        && r.text.contains("187 days old")));
    // The JSON reads back; the budget format is unchanged (new fields are optional).
    let text = budget_json(&b);
    assert!(text.starts_with("{\n  \"format_version\": 1,"));
    assert_eq!(parse_budget(&text).unwrap(), b);

    let written = budget_csv(&b);
    let (csv, records) = budget_csv_records(&written);
    assert!(
        csv.contains("\n# price ages in days counted to 2026-12-05\n"),
        "{csv}"
    );
    let col = column;
    let cheap = records
        .iter()
        .find(|r| &r[col("offer_id")] == "cheap")
        .unwrap();
    assert_eq!(&cheap[col("price_as_of")], "2026-06-01");
    assert_eq!(&cheap[col("price_age_days")], "187");
    assert_eq!(&cheap[col("price_evidence")], "quote");
    assert_eq!(&cheap[col("price_is_estimate")], "false");
    assert_eq!(&cheap[col("price_source")], "added by the user");
    let dear = records
        .iter()
        .find(|r| &r[col("offer_id")] == "dear")
        .unwrap();
    assert_eq!(&dear[col("price_is_estimate")], "true");

    let md = budget_markdown(&b, 5);
    assert!(
        md.contains(
            "**Its price:** 2026-06-01, 187 days old, quote, over 180 days — added by the user"
        ),
        "{md}"
    );
    assert!(md.contains("| price date |") && md.contains("| 2026-11, 34 days old, estimate |"));
    assert!(md.contains("- Price ages counted to 2026-12-05"));

    // Without today: no ages and no line about them.
    let p = plan(&task, &catalog, &settings(None)).unwrap();
    let b = budget(&p, &task, &catalog);
    assert!(b.today.is_none() && b.options.iter().all(|r| r.price_age_days.is_none()));
    assert!(!budget_csv(&b).contains("# price ages"));
    assert!(!budget_markdown(&b, 5).contains("Price ages counted"));
}
