//! The decision: shared, dedicated, dedicated-or-private or hybrid, with every rule that decided.
//!
//! The ranking by total cost decides among feasible offers; the article's rules explain the
//! choice and can tip it: when a rule prefers the other kind of capacity and that kind's best
//! offer costs at most [`PREFERENCE_MARGIN_PCT`] % more, the preference wins (stability or
//! cheapness is worth that much); otherwise the cost wins and the reason says so.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Money;
use crate::plan::feasibility::fmt1;
use crate::plan::option::{OptionResult, STALE_PRICE_DAYS};
use crate::plan::reason::{Reason, RuleId};
use crate::task::document::{Sensitivity, TaskKind, TaskProfile};

/// How much dearer the preferred kind of capacity may be and still be chosen, percent.
pub const PREFERENCE_MARGIN_PCT: u32 = 10;

/// Work longer than this many hours per run, repeated, favours dedicated.
pub const LONG_RUN_HOURS: f64 = 4.0;

/// At least this many runs count as repeated tuning.
pub const TUNING_RUNS: u32 = 3;

/// Slices top out at this VRAM in practice (8, 12, 16 GB).
pub const SLICE_VRAM_GIB: f64 = 16.0;

/// The kind of capacity gpufare recommends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// Shared compute (slices, pools, marketplace hosts).
    Shared,
    /// Dedicated GPUs.
    Dedicated,
    /// Dedicated machines or a private deployment (sensitive data).
    DedicatedOrPrivate,
    /// Different capacity per phase.
    Hybrid,
    /// Nothing in the catalog can run the task.
    NoFeasibleOffer,
}

identifiers!(Choice {
    Shared => "shared",
    Dedicated => "dedicated",
    DedicatedOrPrivate => "dedicated_or_private",
    Hybrid => "hybrid",
    NoFeasibleOffer => "no_feasible_offer",
});

/// The recommendation and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// The recommended kind of capacity.
    pub choice: Choice,
    /// The recommended offer, when one is feasible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_offer: Option<String>,
    /// The cheapest feasible shared offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_shared: Option<String>,
    /// The cheapest feasible dedicated offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_dedicated: Option<String>,
    /// The rules that fired, in order of weight.
    pub reasons: Vec<Reason>,
}

/// Applies the rules to the ranked options.
pub fn decide(task: &TaskProfile, options: &[OptionResult]) -> Decision {
    let mut decision = decide_offer(task, options);
    // An interruptible recommendation names the policy its figures assume.
    let policy = decision
        .recommended_offer
        .as_ref()
        .and_then(|id| options.iter().find(|o| &o.offer_id == id))
        .filter(|o| o.risk.as_ref().is_some_and(|r| r.rate_per_hour > 0.0))
        .and_then(|o| o.flags.iter().find(|f| f.rule == RuleId::SpotPolicy));
    if let Some(reason) = policy {
        decision.reasons.push(reason.clone());
    }
    // A recommendation resting on an estimate or an old price says so, with that price's figures.
    let caveat = decision
        .recommended_offer
        .as_ref()
        .and_then(|id| options.iter().find(|o| &o.offer_id == id))
        .and_then(price_caveat);
    decision.reasons.extend(caveat);
    decision
}

/// The caveat on `option`'s price when it is an estimate or older than [`STALE_PRICE_DAYS`]: the
/// offer, the price's date, its age and evidence where known, and which of the two it is.
pub fn price_caveat(option: &OptionResult) -> Option<Reason> {
    let price = &option.price;
    if !price.needs_caveat() {
        return None;
    }
    let mut r = Reason::new(RuleId::PriceCaveat)
        .with("offer", &option.offer_id)
        .with("as_of", &price.price_as_of);
    if let Some(age) = price.price_age_days {
        r = r.with("age_days", age);
    }
    if let Some(e) = price.price_evidence {
        r = r.with("evidence", e.id());
    }
    if price.price_is_estimate {
        r = r.with("estimate", true);
    }
    if price.is_stale() {
        r = r.with("stale_after_days", STALE_PRICE_DAYS);
    }
    Some(r)
}

fn decide_offer(task: &TaskProfile, options: &[OptionResult]) -> Decision {
    let feasible: Vec<&OptionResult> = options.iter().filter(|o| o.feasible).collect();
    let best_shared = feasible.iter().find(|o| o.shared).copied();
    let best_dedicated = feasible.iter().find(|o| !o.shared).copied();
    let ids = |o: Option<&OptionResult>| o.map(|o| o.offer_id.clone());
    let in_house = task.sensitivity == Sensitivity::InHouse;
    let mut notes = Vec::new();
    if task.vram_gib > SLICE_VRAM_GIB {
        notes.push(Reason::new(RuleId::VramBeyondSlices).with("need_gib", task.vram_gib));
    }

    let Some(&best) = feasible.first() else {
        let mut reasons = vec![Reason::new(RuleId::NoFeasibleOffer).with("offers", options.len())];
        if in_house {
            reasons.push(in_house_rule(task));
        }
        reasons.extend(veto_summary(options));
        reasons.extend(notes);
        return Decision {
            choice: Choice::NoFeasibleOffer,
            recommended_offer: None,
            best_shared: None,
            best_dedicated: None,
            reasons,
        };
    };
    // Each preference says, by the plan's own figures, what its kind of capacity costs against
    // the cheapest offer: a rule of thumb may tip a choice, never claim a saving the numbers deny.
    let prefer_dedicated = with_standing(prefer_dedicated_rules(task), best, best_dedicated);
    let prefer_shared = with_standing(prefer_shared_rules(task, best_dedicated), best, best_shared);

    // Sensitive data and a hybrid plan both put the main work on the best dedicated offer.
    let on_dedicated = |choice: Choice, rule: RuleId, mut reasons: Vec<Reason>| {
        reasons.extend(premium(best, best_dedicated, rule));
        reasons.extend(notes.clone());
        Decision {
            choice,
            recommended_offer: ids(best_dedicated),
            best_shared: ids(best_shared),
            best_dedicated: ids(best_dedicated),
            reasons,
        }
    };
    if in_house {
        let reasons = vec![in_house_rule(task)];
        return on_dedicated(Choice::DedicatedOrPrivate, RuleId::DataInHouse, reasons);
    }
    if let (Some(_), Some(_), Some(_)) = (task.prototype, best_shared, best_dedicated)
        && task.kind.is_training()
    {
        let mut reasons = vec![Reason::new(RuleId::HybridPhases)];
        reasons.extend(prefer_dedicated);
        return on_dedicated(Choice::Hybrid, RuleId::HybridPhases, reasons);
    }

    // The rules preferring the other kind of capacity than the cheapest offer's can tip the
    // choice; the rules agreeing with the cheapest are reasons too.
    let (rules, agreeing, preferred, choice_name) = if best.shared {
        (prefer_dedicated, prefer_shared, best_dedicated, "dedicated")
    } else {
        (prefer_shared, prefer_dedicated, best_shared, "shared")
    };
    let cheapest = best.costs.total_expected.amount;
    let limit = cheapest * Decimal::from(100 + PREFERENCE_MARGIN_PCT) / Decimal::from(100);
    let mut chosen = best;
    let mut tail = Vec::new();
    if !rules.is_empty() {
        match preferred {
            Some(p) if p.costs.total_expected.amount <= limit => {
                chosen = p;
                tail.push(
                    Reason::new(RuleId::PreferenceWithinMargin)
                        .with("offer", &p.offer_id)
                        .with("margin_pct", PREFERENCE_MARGIN_PCT)
                        .with("choice", choice_name),
                );
                tail.extend(premium(best, Some(p), RuleId::PreferenceWithinMargin));
            }
            Some(p) => {
                tail.push(
                    Reason::new(RuleId::PreferenceOutweighed)
                        .with("choice", choice_name)
                        .with(
                            "extra_pct",
                            extra_pct(p.costs.total_expected.amount, cheapest),
                        ),
                );
            }
            None => {}
        }
    }
    let mut reasons = rules;
    reasons.extend(agreeing);
    reasons.push(
        Reason::new(RuleId::CheapestTotal)
            .with("offer", &best.offer_id)
            .with("total", best.costs.total_expected.display()),
    );
    reasons.extend(tail);
    reasons.extend(notes);
    Decision {
        choice: if chosen.shared {
            Choice::Shared
        } else {
            Choice::Dedicated
        },
        recommended_offer: Some(chosen.offer_id.clone()),
        best_shared: ids(best_shared),
        best_dedicated: ids(best_dedicated),
        reasons,
    }
}

/// The rules that prefer dedicated capacity for `task`, in order of weight.
fn prefer_dedicated_rules(task: &TaskProfile) -> Vec<Reason> {
    let mut list = Vec::new();
    if task.work_hours >= LONG_RUN_HOURS && task.runs >= TUNING_RUNS {
        list.push(
            Reason::new(RuleId::LongRepeatedTuning)
                .with("runs", task.runs)
                .with("work_hours", task.work_hours),
        );
    }
    if let Some(d) = task.deadline_hours {
        list.push(Reason::new(RuleId::HardDeadline).with("deadline_hours", d));
    }
    if let (TaskKind::Inference, Some(l), Some(_)) = (task.kind, task.latency, task.service) {
        list.push(Reason::new(RuleId::ProductionInferenceLatency).with("target_ms", l.p99_ms));
    }
    if task.gpus > 1 {
        list.push(Reason::new(RuleId::MultiGpuDedicated).with("gpus", task.gpus));
    }
    list
}

/// The rules that prefer shared capacity for `task`: only checking the code runs, or a budget
/// below the best dedicated total with at least an hour to queue.
fn prefer_shared_rules(task: &TaskProfile, best_dedicated: Option<&OptionResult>) -> Vec<Reason> {
    let mut list = Vec::new();
    if task.kind == TaskKind::CodeCheck {
        list.push(Reason::new(RuleId::CodeCheckSharedFirst));
    }
    if let (Some(budget), Some(d)) = (task.budget, best_dedicated)
        && d.costs.total_expected.amount > budget
        && task.max_queue_hours.is_none_or(|q| q >= 1.0)
    {
        list.push(Reason::new(RuleId::TightBudgetCanQueue).with("budget", budget));
    }
    list
}

/// `rules` (preferring one kind of capacity), each with how the best offer of that kind stands
/// against the cheapest feasible one: the cheapest itself, or what it costs more.
fn with_standing(
    rules: Vec<Reason>,
    cheapest: &OptionResult,
    preferred: Option<&OptionResult>,
) -> Vec<Reason> {
    let Some(p) = preferred else {
        return rules;
    };
    let extra = p.costs.total_expected.amount - cheapest.costs.total_expected.amount;
    rules
        .into_iter()
        .map(|r| {
            if p.offer_id == cheapest.offer_id || extra <= Decimal::ZERO {
                r.with("standing", "cheapest")
            } else {
                r.with("standing", "costs_more").with(
                    "extra",
                    Money::new(extra, p.costs.total_expected.currency).display(),
                )
            }
        })
        .collect()
}

/// The in-house rule with its parameter.
fn in_house_rule(task: &TaskProfile) -> Reason {
    Reason::new(RuleId::DataInHouse).with("sensitivity", task.sensitivity.id())
}

/// Why no offer is feasible: each veto that excluded offers, with how many it excluded and the
/// parameters all of them share, most frequent first.
fn veto_summary(options: &[OptionResult]) -> Vec<Reason> {
    let mut by_rule: BTreeMap<RuleId, (usize, Reason)> = BTreeMap::new();
    for r in options.iter().flat_map(|o| &o.reasons) {
        let entry = by_rule.entry(r.rule).or_insert_with(|| (0, r.clone()));
        entry.0 += 1;
        entry.1.params.retain(|k, v| r.params.get(k) == Some(v));
    }
    let mut list: Vec<(usize, Reason)> = by_rule.into_values().collect();
    list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.rule.cmp(&b.1.rule)));
    list.into_iter().map(|(n, r)| r.with("offers", n)).collect()
}

/// When the recommendation is not the cheapest feasible offer: by how much it costs more, what
/// it gives for that (its P90 time and total, and its deadline risk, against the cheapest's), and
/// the rule that chose it.
fn premium(cheapest: &OptionResult, chosen: Option<&OptionResult>, rule: RuleId) -> Option<Reason> {
    let chosen = chosen?;
    if chosen.offer_id == cheapest.offer_id {
        return None;
    }
    let extra = chosen.costs.total_expected.amount - cheapest.costs.total_expected.amount;
    let mut r = Reason::new(RuleId::PremiumOverCheapest)
        .with("offer", &chosen.offer_id)
        .with("cheapest", &cheapest.offer_id)
        .with(
            "extra",
            Money::new(extra, chosen.costs.total_expected.currency).display(),
        )
        .with(
            "extra_pct",
            extra_pct(
                chosen.costs.total_expected.amount,
                cheapest.costs.total_expected.amount,
            ),
        )
        .with("p90_hours", fmt1(chosen.hours_p90))
        .with("cheapest_p90_hours", fmt1(cheapest.hours_p90))
        .with("p90_total", chosen.costs.total_p90.display())
        .with("cheapest_p90_total", cheapest.costs.total_p90.display())
        .with("rule", rule.id());
    if let (Some(a), Some(b)) = (
        chosen.deadline_miss_probability,
        cheapest.deadline_miss_probability,
    ) {
        r = r
            .with("miss_pct", format!("{:.1}", a * 100.0))
            .with("cheapest_miss_pct", format!("{:.1}", b * 100.0));
    }
    Some(r)
}

fn extra_pct(amount: Decimal, cheapest: Decimal) -> String {
    ((amount - cheapest) * Decimal::from(100))
        .checked_div(cheapest)
        .map_or_else(|| "∞".to_owned(), |pct| pct.round_dp(1).to_string())
}
