//! The decision says why, in numbers: every rule that decided, what a premium over the cheapest
//! offer buys, and break-even figures read against the range they can happen in.

use gpufare_core::offers::catalog::Catalog;
use gpufare_core::offers::csv::parse_catalog_csv;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::breakeven::Payoff;
use gpufare_core::plan::reason::RuleId;
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::{PlanResult, plan};
use gpufare_core::task::presets::preset;
use rust_decimal::Decimal;

/// A frozen catalog: these tests are about how the decision reads its numbers, and a premium
/// case or a break-even inside its range must not come and go with the default catalog's prices.
fn frozen() -> Catalog {
    parse_catalog_csv(include_str!(
        "../../tests/fixtures/catalogs/decision-cases.csv"
    ))
    .unwrap()
}

fn plan_of(id: &str) -> PlanResult {
    let task = preset(id).unwrap();
    plan(&task, &frozen(), &PlanSettings::for_task(&task)).unwrap()
}

#[test]
fn a_recommendation_dearer_than_the_cheapest_says_by_how_much_and_why() {
    let p = plan_of("qlora_7b");
    let cheapest = p.options.iter().find(|o| o.feasible).unwrap();
    let id = p.decision.recommended_offer.as_deref().unwrap();
    let chosen = p.options.iter().find(|o| o.offer_id == id).unwrap();
    assert_ne!(
        cheapest.offer_id, chosen.offer_id,
        "the preset's premium case"
    );
    let r = p
        .decision
        .reasons
        .iter()
        .find(|r| r.rule == RuleId::PremiumOverCheapest)
        .expect("a premium reason");
    let extra = chosen.costs.total_expected.amount - cheapest.costs.total_expected.amount;
    assert_eq!(r.params["extra"], format!("{} CNY", extra.round_dp(2)));
    assert_eq!(r.params["cheapest"], cheapest.offer_id);
    assert_eq!(r.params["rule"], "hybrid_phases");
    assert_eq!(r.params["p90_total"], chosen.costs.total_p90.display());
    assert!(
        r.english().contains("more than the cheapest"),
        "{}",
        r.english()
    );
    // No premium reason when the recommendation is the cheapest.
    let p = plan_of("inference_api");
    assert!(
        p.decision
            .reasons
            .iter()
            .all(|r| r.rule != RuleId::PremiumOverCheapest)
    );
}

#[test]
fn production_inference_lists_its_latency_rule_even_when_dedicated_is_cheapest() {
    let p = plan_of("inference_api");
    let best = p.options.iter().find(|o| o.feasible).unwrap();
    assert!(!best.shared);
    let rules: Vec<RuleId> = p.decision.reasons.iter().map(|r| r.rule).collect();
    assert!(
        rules.contains(&RuleId::ProductionInferenceLatency),
        "{rules:?}"
    );
    assert!(rules.contains(&RuleId::CheapestTotal));
}

#[test]
fn break_even_figures_are_read_against_their_range() {
    let p = plan_of("qlora_7b");
    let be = &p.break_even;
    // The yearly plan would pay off above 28.6 months a year: never, within a year.
    assert!(be.yearly_vs_monthly.as_ref().unwrap().break_even > 12.0);
    assert_eq!(be.yearly_payoff(), Some(Payoff::Never));
    assert!(matches!(be.monthly_payoff(), Some(Payoff::From(h)) if h < 730.0));
    // Dedicated is cheaper at a tenth of the work but dearer at every larger size: it does not
    // beat shared "from any size", it never does in the range swept.
    let run = be.dedicated_vs_shared.as_ref().unwrap();
    let last = run.points.last().unwrap();
    assert!(last.b.amount > last.a.amount);
    assert_eq!(run.work_hours, None);
    assert_eq!(be.run_length_payoff(), Some(Payoff::Never));
}

#[test]
fn a_usd_task_is_priced_in_usd_by_default() {
    let mut task = preset("sd_trial").unwrap();
    task.currency = gpufare_core::Currency::Usd;
    task.value_of_time_per_hour = Decimal::from(5);
    let p = plan(&task, default_catalog(), &PlanSettings::for_task(&task)).unwrap();
    assert_eq!(p.currency, gpufare_core::Currency::Usd);
    assert!(
        p.options
            .iter()
            .all(|o| o.costs.total_expected.currency == gpufare_core::Currency::Usd)
    );
}
