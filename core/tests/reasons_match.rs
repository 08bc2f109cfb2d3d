//! A reason never claims what the option's own numbers contradict (issue 32, item 7): over a
//! corpus of scenarios — every preset with fewer and more runs, shorter and longer work, with and
//! without a deadline and a budget — each preference rule says truly whether its kind of capacity
//! is the cheapest or what it costs more, a recommendation that is not the cheapest says its
//! premium, and the cheapest-total reason names the cheapest offer.

use gpufare_core::numbers::money::Money;
use gpufare_core::offers::default::default_catalog;
use gpufare_core::plan::option::OptionResult;
use gpufare_core::plan::reason::{Reason, RuleId, Standing};
use gpufare_core::plan::settings::PlanSettings;
use gpufare_core::plan::{PlanResult, plan};
use gpufare_core::task::document::TaskProfile;
use gpufare_core::task::presets::{PRESET_IDS, preset};
use rust_decimal::Decimal;

fn corpus() -> Vec<(String, TaskProfile)> {
    let mut out = Vec::new();
    for id in PRESET_IDS {
        let base = preset(id).unwrap();
        for runs in [1, 3, 8] {
            for scale in [0.3, 1.0, 4.0] {
                for deadline in [None, Some(48.0)] {
                    let mut t = base.clone();
                    t.runs = runs;
                    t.work_hours *= scale;
                    t.deadline_hours = deadline;
                    t.deadline_penalty = deadline.map(|_| Decimal::from(200));
                    if runs == 3 {
                        t.budget = Some(Decimal::from(100));
                    }
                    out.push((
                        format!("{id} runs={runs} x{scale} deadline={deadline:?}"),
                        t,
                    ));
                }
            }
        }
    }
    out
}

fn total(o: &OptionResult) -> Decimal {
    o.costs.total_expected.amount
}

/// Whether `rule` prefers dedicated capacity (`Some(false)`), shared (`Some(true)`) or neither.
fn prefers_shared(rule: RuleId) -> Option<bool> {
    match rule {
        RuleId::LongRepeatedTuning
        | RuleId::HardDeadline
        | RuleId::ProductionInferenceLatency
        | RuleId::MultiGpuDedicated => Some(false),
        RuleId::CodeCheckSharedFirst | RuleId::TightBudgetCanQueue => Some(true),
        _ => None,
    }
}

fn check(name: &str, result: &PlanResult) {
    let feasible: Vec<&OptionResult> = result.options.iter().filter(|o| o.feasible).collect();
    let Some(cheapest) = feasible.iter().min_by_key(|o| total(o)).copied() else {
        return;
    };
    let money = |d: Decimal| Money::new(d, result.currency).display();
    let reasons: &[Reason] = &result.decision.reasons;
    for r in reasons {
        let text = r.english();
        assert!(!text.contains("pays off"), "{name}: {text}");
        if let Some(shared) = prefers_shared(r.rule) {
            let best = feasible
                .iter()
                .filter(|o| o.shared == shared)
                .min_by_key(|o| total(o));
            match (best, r.standing()) {
                (Some(b), Some(Standing::Cheapest)) => {
                    assert!(total(b) <= total(cheapest), "{name}: {text}")
                }
                (Some(b), Some(Standing::CostsMore(extra))) => {
                    assert_eq!(extra, money(total(b) - total(cheapest)), "{name}: {text}")
                }
                (None, None) => {}
                (best, standing) => panic!("{name}: {text}: {best:?} {standing:?}"),
            }
        }
        if r.rule == RuleId::CheapestTotal {
            assert_eq!(
                total(
                    feasible
                        .iter()
                        .find(|o| o.offer_id == r.params["offer"])
                        .unwrap()
                ),
                total(cheapest),
                "{name}: {text}"
            );
        }
    }
    let recommended = result
        .decision
        .recommended_offer
        .as_ref()
        .and_then(|id| feasible.iter().find(|o| &o.offer_id == id));
    if let Some(rec) = recommended
        && total(rec) > total(cheapest)
    {
        let premium = reasons
            .iter()
            .find(|r| r.rule == RuleId::PremiumOverCheapest)
            .unwrap_or_else(|| panic!("{name}: {} costs more, unsaid", rec.offer_id));
        assert_eq!(
            premium.params["extra"],
            money(total(rec) - total(cheapest)),
            "{name}"
        );
    }
}

#[test]
fn no_reason_claims_what_the_figures_deny() {
    let catalog = default_catalog();
    let mut checked = 0;
    for (name, task) in corpus() {
        let settings = PlanSettings {
            trials: 100,
            ..PlanSettings::for_task(&task)
        };
        let result = plan(&task, catalog, &settings).unwrap();
        check(&name, &result);
        checked += 1;
    }
    assert_eq!(checked, PRESET_IDS.len() * 18);
}
