//! The hybrid plan: each phase of a training task on the capacity that suits it — prototype on
//! shared pay-as-you-go, the main work on dedicated, serving on dedicated, cold data on object
//! storage — each priced.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::{Currency, Money, dec};
use crate::offers::billing::{BillingMode, HOURS_PER_MONTH};
use crate::offers::rent::rent_in_offer_currency;
use crate::plan::context::Context;
use crate::plan::decision::{Choice, Decision};
use crate::plan::option::OptionResult;
use crate::task::policy::Policy;

/// Cold object storage per GB-month in yuan (assumed typical infrequent-access list price).
pub const COLD_STORAGE_CNY: Decimal = Decimal::from_parts(8, 0, 0, false, 2);

/// Cold object storage per GB-month in dollars (assumed typical infrequent-access list price).
pub const COLD_STORAGE_USD: Decimal = Decimal::from_parts(125, 0, 0, false, 4);

/// A phase of the hybrid plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseKind {
    /// Development and debugging on shared pay-as-you-go.
    Prototype,
    /// The main work on the cheapest dedicated capacity.
    Train,
    /// Serving on dedicated capacity.
    Serve,
    /// Keeping data on cold object storage.
    ColdStorage,
}

identifiers!(PhaseKind {
    Prototype => "prototype",
    Train => "train",
    Serve => "serve",
    ColdStorage => "cold_storage",
});

/// One priced phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Phase {
    /// Which phase.
    pub phase: PhaseKind,
    /// The offer used, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer_id: Option<String>,
    /// Hours of GPU time (or months of storage for cold storage, as hours).
    pub hours: f64,
    /// What the phase costs.
    pub cost: Money,
    /// The policy the phase runs under, when its offer is interruptible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
}

/// The hybrid plan: each phase on the capacity that suits it, each priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HybridPlan {
    /// The phases in order.
    pub phases: Vec<Phase>,
    /// Sum of the phases.
    pub total: Money,
}

/// Prices the hybrid plan for training-like tasks (prototype, train, serve, cold storage) from
/// the plan's own `options`: a phase runs only on an option the plan found feasible, and the
/// main work costs what the plan's ranking says it costs.
pub fn hybrid_plan(
    ctx: &Context<'_>,
    decision: &Decision,
    options: &[OptionResult],
) -> Option<HybridPlan> {
    let task = ctx.task;
    if !task.kind.is_training() || decision.choice == Choice::NoFeasibleOffer {
        return None;
    }
    let offer = |o: &OptionResult| ctx.offer_named(&o.offer_id);
    // The cheapest rent for `hours` of running among the feasible options `keep` allows.
    let cheapest = |keep: &dyn Fn(&OptionResult) -> bool, hours: f64, held: f64| {
        options
            .iter()
            .filter(|o| o.feasible && keep(o))
            .filter_map(offer)
            .map(|o| {
                (
                    o,
                    ctx.offer_money(o, rent_in_offer_currency(o, hours, held, 1)),
                )
            })
            .min_by(|a, b| a.1.cmp(&b.1).then(a.0.id.cmp(&b.0.id)))
    };
    let mut phases = Vec::new();
    if let Some(proto) = task.prototype {
        let shared_payg = |o: &OptionResult| o.shared && o.billing_mode == BillingMode::PayAsYouGo;
        if let Some((o, cost)) = cheapest(&shared_payg, proto.hours, proto.hours) {
            phases.push(Phase {
                phase: PhaseKind::Prototype,
                offer_id: Some(o.id.clone()),
                hours: proto.hours,
                cost: ctx.money(cost),
                policy: None,
            });
        }
    }
    // The main work runs on the cheapest feasible dedicated offer (often a weekly or monthly
    // plan when the work is long; pay-as-you-go when it is short), as the plan priced it.
    if let Some(p) = decision
        .best_dedicated
        .as_deref()
        .and_then(|id| options.iter().find(|o| o.offer_id == id))
    {
        phases.push(Phase {
            phase: PhaseKind::Train,
            offer_id: Some(p.offer_id.clone()),
            hours: p.hours_expected,
            cost: p.costs.total_expected,
            policy: p.policy,
        });
    }
    if let Some(service) = task.service {
        let hours = service.hours_per_month * service.months;
        let dedicated = |o: &OptionResult| !o.shared && o.billing_mode != BillingMode::Spot;
        if let Some((o, cost)) = cheapest(&dedicated, hours, service.months * HOURS_PER_MONTH) {
            phases.push(Phase {
                phase: PhaseKind::Serve,
                offer_id: Some(o.id.clone()),
                hours,
                cost: ctx.money(cost),
                policy: None,
            });
        }
    }
    if task.storage_gb > 0.0 && task.storage_months > 0.0 {
        let rate = match ctx.settings.currency {
            Currency::Cny => COLD_STORAGE_CNY,
            Currency::Usd => COLD_STORAGE_USD,
        };
        let cost = rate * dec(task.storage_gb) * dec(task.storage_months);
        phases.push(Phase {
            phase: PhaseKind::ColdStorage,
            offer_id: None,
            hours: task.storage_months * HOURS_PER_MONTH,
            cost: ctx.money(cost),
            policy: None,
        });
    }
    if phases.is_empty() {
        return None;
    }
    let total = ctx.money(phases.iter().map(|p| p.cost.amount).sum());
    Some(HybridPlan { phases, total })
}
