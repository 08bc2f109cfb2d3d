//! The decision: shared, dedicated, dedicated-or-private or hybrid, with every rule that decided.
//!
//! The ranking by total cost decides among feasible offers; the article's rules explain the
//! choice and can tip it: when a rule prefers the other kind of capacity and that kind's best
//! offer costs at most [`PREFERENCE_MARGIN_PCT`] % more, the preference wins (stability or
//! cheapness is worth that much); otherwise the cost wins and the reason says so.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::option::OptionResult;
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
    let feasible: Vec<&OptionResult> = options.iter().filter(|o| o.feasible).collect();
    let best = feasible.first().copied();
    let best_shared = feasible.iter().find(|o| o.shared).copied();
    let best_dedicated = feasible.iter().find(|o| !o.shared).copied();
    let mut reasons = Vec::new();

    let mut prefer_dedicated = Vec::new();
    if task.work_hours >= LONG_RUN_HOURS && task.runs >= TUNING_RUNS {
        prefer_dedicated.push(
            Reason::new(RuleId::LongRepeatedTuning)
                .with("runs", task.runs)
                .with("work_hours", task.work_hours),
        );
    }
    if let Some(d) = task.deadline_hours {
        prefer_dedicated.push(Reason::new(RuleId::HardDeadline).with("deadline_hours", d));
    }
    if let (TaskKind::Inference, Some(l), Some(_)) = (task.kind, task.latency, task.service) {
        prefer_dedicated
            .push(Reason::new(RuleId::ProductionInferenceLatency).with("target_ms", l.p99_ms));
    }
    if task.gpus > 1 {
        prefer_dedicated.push(Reason::new(RuleId::MultiGpuDedicated).with("gpus", task.gpus));
    }
    let mut prefer_shared = Vec::new();
    if task.kind == TaskKind::CodeCheck {
        prefer_shared.push(Reason::new(RuleId::CodeCheckSharedFirst));
    }
    if let (Some(budget), Some(d)) = (task.budget, best_dedicated)
        && d.total_expected.amount > budget
        && task.max_queue_hours.is_none_or(|q| q >= 1.0)
    {
        prefer_shared.push(Reason::new(RuleId::TightBudgetCanQueue).with("budget", budget));
    }
    if task.vram_gib > SLICE_VRAM_GIB {
        reasons.push(Reason::new(RuleId::VramBeyondSlices).with("need_gib", task.vram_gib));
    }

    let Some(best) = best else {
        reasons.insert(0, Reason::new(RuleId::NoFeasibleOffer));
        return Decision {
            choice: Choice::NoFeasibleOffer,
            recommended_offer: None,
            best_shared: None,
            best_dedicated: None,
            reasons,
        };
    };
    let ids = |o: Option<&OptionResult>| o.map(|o| o.offer_id.clone());

    if task.sensitivity == Sensitivity::InHouse {
        reasons.insert(0, Reason::new(RuleId::DataInHouse));
        return Decision {
            choice: Choice::DedicatedOrPrivate,
            recommended_offer: ids(best_dedicated),
            best_shared: ids(best_shared),
            best_dedicated: ids(best_dedicated),
            reasons,
        };
    }

    if let (Some(_), Some(_), Some(_)) = (task.prototype, best_shared, best_dedicated)
        && task.kind.is_training()
    {
        reasons.insert(0, Reason::new(RuleId::HybridPhases));
        reasons.extend(prefer_dedicated);
        return Decision {
            choice: Choice::Hybrid,
            recommended_offer: ids(best_dedicated),
            best_shared: ids(best_shared),
            best_dedicated: ids(best_dedicated),
            reasons,
        };
    }

    let margin = |preferred: &OptionResult| {
        let cheapest = best.total_expected.amount;
        let limit = cheapest * Decimal::from(100 + PREFERENCE_MARGIN_PCT) / Decimal::from(100);
        (
            preferred.total_expected.amount <= limit,
            extra_pct(preferred.total_expected.amount, cheapest),
        )
    };
    let mut chosen = best;
    let (rules, preferred, choice_name) = if best.shared {
        (prefer_dedicated, best_dedicated, "dedicated")
    } else {
        (prefer_shared, best_shared, "shared")
    };
    let mut tail = Vec::new();
    if !rules.is_empty() {
        match preferred {
            Some(p) if margin(p).0 => {
                chosen = p;
                tail.push(
                    Reason::new(RuleId::PreferenceWithinMargin)
                        .with("offer", &p.offer_id)
                        .with("margin_pct", PREFERENCE_MARGIN_PCT)
                        .with("choice", choice_name),
                );
            }
            Some(p) => {
                tail.push(
                    Reason::new(RuleId::PreferenceOutweighed)
                        .with("choice", choice_name)
                        .with("extra_pct", margin(p).1),
                );
            }
            None => {}
        }
    }
    // Rules agreeing with the cheapest kind are reasons too.
    let agreeing = if best.shared {
        prefer_shared_rules(task, best_dedicated)
    } else {
        prefer_dedicated_rules(task)
    };
    let mut ordered = Vec::new();
    ordered.extend(rules);
    ordered.extend(agreeing);
    ordered.push(
        Reason::new(RuleId::CheapestTotal)
            .with("offer", &best.offer_id)
            .with("total", best.total_expected.display()),
    );
    ordered.extend(tail);
    ordered.extend(reasons);
    Decision {
        choice: if chosen.shared {
            Choice::Shared
        } else {
            Choice::Dedicated
        },
        recommended_offer: Some(chosen.offer_id.clone()),
        best_shared: ids(best_shared),
        best_dedicated: ids(best_dedicated),
        reasons: ordered,
    }
}

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
    if task.gpus > 1 {
        list.push(Reason::new(RuleId::MultiGpuDedicated).with("gpus", task.gpus));
    }
    list
}

fn prefer_shared_rules(task: &TaskProfile, best_dedicated: Option<&OptionResult>) -> Vec<Reason> {
    let mut list = Vec::new();
    if task.kind == TaskKind::CodeCheck {
        list.push(Reason::new(RuleId::CodeCheckSharedFirst));
    }
    if let (Some(budget), Some(d)) = (task.budget, best_dedicated)
        && d.total_expected.amount > budget
    {
        list.push(Reason::new(RuleId::TightBudgetCanQueue).with("budget", budget));
    }
    list
}

fn extra_pct(amount: Decimal, cheapest: Decimal) -> String {
    if cheapest.is_zero() {
        return "∞".to_owned();
    }
    ((amount - cheapest) * Decimal::from(100) / cheapest)
        .round_dp(1)
        .to_string()
}
