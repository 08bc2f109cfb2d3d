//! The budget: a plan flattened into rows of raw numbers for procurement, with the price dates and
//! the assumptions behind them; written and read as JSON.
//!
//! Money is written as plain decimal numbers in the plan's currency, already rounded to the
//! minor unit (0.01): a cent amount below 2^53 / 100 prints exactly.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::numbers::money::{Currency, Money, group_thousands};
use crate::numbers::problem::JsonProblem;
use crate::offers::catalog::Catalog;
use crate::offers::queue::QueueHours;
use crate::offers::tenancy::{LatencyFactor, NeighbourLoad, Slowdown};
use crate::plan::PlanResult;
use crate::plan::assumption::Assumption;
use crate::plan::breakeven::{MONTH_LIMIT_HOURS, Payoff, YEAR_LIMIT_MONTHS, payoff};
use crate::plan::context::Context;
use crate::plan::option::STALE_PRICE_DAYS;
use crate::plan::reason::Reason;
use crate::plan::risk::Risk;
use crate::task::document::TaskProfile;

/// The budget format this build writes and the newest it reads.
pub const BUDGET_FORMAT_VERSION: u32 = 1;

/// A reason with its rule id, parameters and English wording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetReason {
    /// The rule id (snake case), e.g. `vram_oom`.
    pub rule: String,
    /// The rule's parameters.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, String>,
    /// The reason in English.
    pub text: String,
}

impl BudgetReason {
    fn from(r: &Reason) -> BudgetReason {
        BudgetReason {
            rule: r.rule.id().to_owned(),
            params: r.params.clone(),
            text: r.english(),
        }
    }
}

/// One option of the plan with raw numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetRow {
    /// 1-based rank (feasible options first).
    pub rank: usize,
    /// The offer's id.
    pub offer_id: String,
    /// Provider.
    pub provider: String,
    /// GPU short name.
    pub gpu: String,
    /// GPUs in the offer.
    pub gpu_count: u32,
    /// Tenancy id.
    pub tenancy: String,
    /// Whether it is shared compute.
    pub shared: bool,
    /// Billing mode id.
    pub billing_mode: String,
    /// Region class id.
    pub region_class: String,
    /// Whether the task can run here.
    pub feasible: bool,
    /// Why not, when infeasible.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<BudgetReason>,
    /// Warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<BudgetReason>,
    /// VRAM fit id (`fits`, `tight`, `oom`).
    pub vram_fit: String,
    /// Expected wall-clock hours.
    pub hours_expected: f64,
    /// Median wall-clock hours.
    pub hours_p50: f64,
    /// 90th-percentile wall-clock hours.
    pub hours_p90: f64,
    /// Probability of missing the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_miss_probability: Option<f64>,
    /// Expected rent.
    pub rent: f64,
    /// Storage and system disk.
    pub storage: f64,
    /// Egress.
    pub egress: f64,
    /// Value of the time spent.
    pub time_cost: f64,
    /// Expected deadline penalty.
    pub risk_cost: f64,
    /// Expected total.
    pub total_expected: f64,
    /// Total in the P90 trial.
    pub total_p90: f64,
    /// Date of the offer's price (`YYYY-MM-DD`, or `YYYY-MM` when the source gives the month).
    pub price_as_of: String,
    /// Whether the offer's price is an estimate.
    pub price_is_estimate: bool,
    /// How strong the evidence behind the price is (`quote`, `official`, `catalog`, `secondary`,
    /// `estimate`), when the catalog says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_evidence: Option<String>,
    /// Days from the price's date to the budget's `today`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_age_days: Option<u32>,
    /// Where the price comes from: a public URL, a feed, the user's quote.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub price_source: String,
    /// The offer's price per GPU-hour in the budget's currency, with the provider's discount (a
    /// term's price spread over its hours), to 4 decimals; absent in budgets written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_per_gpu_hour: Option<f64>,
    /// The round trip from the user's location, ms, when the task gives a location or measured
    /// round trips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// Where that round trip comes from: `measured`, `published`, `distance` or `catalog`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_basis: Option<String>,
    /// Estimated P99 latency, the round trip included, ms (inference with a latency target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ms: Option<f64>,
    /// The policy behind the figures, for an interruptible offer (e.g. `fallback_after_2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Interruptions, the trace, and every policy priced by the model and by the replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// The wait before one start (P50, P90, P99, mean, hours) and its source; absent in
    /// budgets written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_hours: Option<QueueHours>,
    /// The run-time multiplier used against the offer's nominal share (median, P99, source).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<Slowdown>,
    /// The neighbours' load behind it, for a work-conserving tenancy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_load: Option<NeighbourLoad>,
    /// The request-level P99 latency factor of the offer's tenancy, with its spread and source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_factor: Option<LatencyFactor>,
    /// The MIG profile of a MIG slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_profile: Option<String>,
    /// Compute and communication per step of a data-parallel run over the offer's links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub communication: Option<crate::plan::scaling::Communication>,
}

/// The recommendation in a budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetDecision {
    /// `shared`, `dedicated`, `dedicated_or_private`, `hybrid` or `no_feasible_offer`.
    pub choice: String,
    /// The recommended offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended_offer: Option<String>,
    /// The reasons.
    pub reasons: Vec<BudgetReason>,
}

/// A hybrid phase in a budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BudgetPhase {
    /// `prototype`, `train`, `serve` or `cold_storage`.
    pub phase: String,
    /// The offer used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer_id: Option<String>,
    /// Hours.
    pub hours: f64,
    /// The policy of an interruptible offer (e.g. `fallback_after_2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// Cost.
    pub cost: f64,
}

/// Break-even figures in a budget.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct BudgetBreakEven {
    /// Hours per month above which monthly beats pay-as-you-go, and for which GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monthly_vs_pay_as_you_go_hours: Option<f64>,
    /// Months per year above which yearly beats monthly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yearly_vs_monthly_months: Option<f64>,
    /// Work hours from which the best dedicated total beats the best shared one (0: at any size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedicated_vs_shared_work_hours: Option<f64>,
    /// Whether work sizes were swept for the figure above; swept without a figure means
    /// dedicated never beats shared up to 64 times the task's work.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dedicated_vs_shared_swept: bool,
}

impl BudgetBreakEven {
    /// Whether and from how many hours a month a monthly plan beats pay-as-you-go.
    pub fn monthly_payoff(&self) -> Option<Payoff> {
        let h = self.monthly_vs_pay_as_you_go_hours?;
        Some(payoff(Some(h), Some(MONTH_LIMIT_HOURS)))
    }

    /// Whether and from how many months a year a yearly plan beats monthly.
    pub fn yearly_payoff(&self) -> Option<Payoff> {
        let m = self.yearly_vs_monthly_months?;
        Some(payoff(Some(m), Some(YEAR_LIMIT_MONTHS)))
    }

    /// Whether and from what work size dedicated beats shared.
    pub fn run_length_payoff(&self) -> Option<Payoff> {
        (self.dedicated_vs_shared_swept || self.dedicated_vs_shared_work_hours.is_some())
            .then(|| payoff(self.dedicated_vs_shared_work_hours, None))
    }
}

/// A plan flattened for procurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Budget {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// Always `gpufare-budget`.
    pub kind: String,
    /// Currency of every amount.
    pub currency: Currency,
    /// Yuan per dollar used for conversions.
    pub cny_per_usd: f64,
    /// Monte Carlo seed.
    pub seed: u64,
    /// Monte Carlo trials per offer.
    pub trials: u32,
    /// The task priced.
    pub task: TaskProfile,
    /// The recommendation.
    pub decision: BudgetDecision,
    /// Every option, ranked.
    pub options: Vec<BudgetRow>,
    /// The hybrid plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hybrid: Vec<BudgetPhase>,
    /// Total of the hybrid plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybrid_total: Option<f64>,
    /// Break-even figures.
    pub break_even: BudgetBreakEven,
    /// Price dates of the catalog.
    pub price_dates: Vec<String>,
    /// The day the prices' ages are counted to, when the plan was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<String>,
    /// Assumptions behind the numbers.
    pub assumptions: Vec<Assumption>,
    /// The whole scenario (task, settings, catalog edits, filter), when the budget came from
    /// the site: `gpufare plan --scenario` reprices it exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<crate::scenario::document::Scenario>,
    /// A service's ways to deploy (fixed fleet, autoscaling, reserved base plus burst, shared
    /// pool) on every feasible offer, when the task serves a model with traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<crate::serving::service::ServicePlan>,
}

/// A money amount as a plain number (already rounded to the minor unit).
pub fn number(m: &Money) -> f64 {
    m.number()
}

/// Flattens a plan for `task` priced against `catalog` (for the source of each offer's price).
pub fn budget(plan: &PlanResult, task: &TaskProfile, catalog: &Catalog) -> Budget {
    let by_id = catalog.by_id();
    let offer = |id: &str| by_id.get(id).copied();
    let ctx = Context::new(task, &plan.settings);
    let options = plan
        .options
        .iter()
        .enumerate()
        .map(|(i, o)| BudgetRow {
            rank: i + 1,
            offer_id: o.offer_id.clone(),
            provider: o.provider.clone(),
            gpu: o.gpu.clone(),
            gpu_count: o.gpu_count,
            tenancy: o.tenancy.id().to_owned(),
            shared: o.shared,
            billing_mode: o.billing_mode.id().to_owned(),
            region_class: o.region_class.id().to_owned(),
            feasible: o.feasible,
            reasons: o.reasons.iter().map(BudgetReason::from).collect(),
            flags: o.flags.iter().map(BudgetReason::from).collect(),
            vram_fit: o.vram_fit.id().to_owned(),
            hours_expected: o.hours_expected,
            hours_p50: o.hours_p50,
            hours_p90: o.hours_p90,
            deadline_miss_probability: o.deadline_miss_probability,
            rent: number(&o.costs.rent),
            storage: number(&o.costs.storage),
            egress: number(&o.costs.egress),
            time_cost: number(&o.costs.time_cost),
            risk_cost: number(&o.costs.risk_cost),
            total_expected: number(&o.costs.total_expected),
            total_p90: number(&o.costs.total_p90),
            price_as_of: o.price.price_as_of.clone(),
            price_is_estimate: o.price.price_is_estimate,
            price_evidence: o.price.price_evidence.map(|e| e.id().to_owned()),
            price_age_days: o.price.price_age_days,
            price_source: offer(&o.offer_id)
                .map(|x| x.source.clone())
                .unwrap_or_default(),
            price_per_gpu_hour: offer(&o.offer_id)
                .map(|x| f64::try_from(ctx.price_per_gpu_hour(x).round_dp(4)).unwrap_or(0.0)),
            rtt_ms: o.round_trip.as_ref().map(|rt| rt.ms),
            rtt_basis: o.round_trip.as_ref().map(|rt| rt.basis.id().to_owned()),
            latency_p99_ms: o.latency_p99_ms,
            policy: o.policy.map(|p| p.id()),
            risk: o.risk.clone(),
            queue_hours: Some(o.queue_hours.clone()),
            slowdown: Some(o.slowdown),
            neighbour_load: o.neighbour_load,
            latency_p99_factor: Some(o.latency_p99_factor),
            mig_profile: offer(&o.offer_id).and_then(|x| x.mig_profile.clone()),
            communication: o.communication,
        })
        .collect();
    let be = &plan.break_even;
    Budget {
        format_version: BUDGET_FORMAT_VERSION,
        kind: "gpufare-budget".to_owned(),
        currency: plan.currency,
        cny_per_usd: f64::try_from(plan.settings.cny_per_usd).unwrap_or(0.0),
        seed: plan.settings.seed,
        trials: plan.settings.trials,
        task: task.clone(),
        decision: BudgetDecision {
            choice: plan.decision.choice.id().to_owned(),
            recommended_offer: plan.decision.recommended_offer.clone(),
            reasons: plan
                .decision
                .reasons
                .iter()
                .map(BudgetReason::from)
                .collect(),
        },
        options,
        hybrid: plan
            .hybrid
            .as_ref()
            .map(|h| {
                h.phases
                    .iter()
                    .map(|p| BudgetPhase {
                        phase: p.phase.id().to_owned(),
                        offer_id: p.offer_id.clone(),
                        hours: p.hours,
                        policy: p.policy.map(|x| x.id()),
                        cost: number(&p.cost),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        hybrid_total: plan.hybrid.as_ref().map(|h| number(&h.total)),
        break_even: BudgetBreakEven {
            monthly_vs_pay_as_you_go_hours: be
                .monthly_vs_pay_as_you_go
                .as_ref()
                .map(|b| b.break_even),
            yearly_vs_monthly_months: be.yearly_vs_monthly.as_ref().map(|b| b.break_even),
            dedicated_vs_shared_work_hours: be
                .dedicated_vs_shared
                .as_ref()
                .and_then(|b| b.work_hours),
            dedicated_vs_shared_swept: be.dedicated_vs_shared.is_some(),
        },
        price_dates: plan.price_dates.clone(),
        today: plan.settings.today.clone(),
        assumptions: plan.assumptions.clone(),
        scenario: None,
        service: crate::serving::service::plan_service(task, catalog, plan),
    }
}

/// The budget as pretty JSON, `format_version` first.
pub fn budget_json(b: &Budget) -> String {
    let mut s = serde_json::to_string_pretty(b).unwrap_or_default();
    s.push('\n');
    s
}

/// Why a budget file could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BudgetError {
    /// Not JSON or a field is wrong.
    #[error("not a gpufare budget (line {}, column {}): {}", .0.line, .0.column, .0.detail)]
    Invalid(JsonProblem),
    /// Written by a newer gpufare.
    #[error("budget format version {found} is newer than this gpufare supports (up to {max})")]
    UnsupportedFormat {
        /// The version found.
        found: u64,
        /// The newest supported.
        max: u32,
    },
    /// A figure no plan could have written (negative, not finite, or past any real budget);
    /// the field is named by its JSON path.
    #[error("not a gpufare budget: field {}: {}", .0.field, .0.problem)]
    OutOfRange(crate::numbers::problem::FieldError),
    /// The scenario embedded in the budget is unusable.
    #[error("the budget's scenario is invalid: {0}")]
    Scenario(crate::scenario::document::ScenarioError),
}

/// The largest amount a budget may hold, in its currency (10^15: far past any real plan).
pub const MAX_BUDGET_AMOUNT: f64 = 1e15;

impl Budget {
    /// The row of the recommended offer, when there is one.
    pub fn recommended_row(&self) -> Option<&BudgetRow> {
        let id = self.decision.recommended_offer.as_ref()?;
        self.options.iter().find(|r| &r.offer_id == id)
    }

    /// Checks every figure is one a plan could have written; the error names the field.
    pub fn validate(&self) -> Result<(), BudgetError> {
        use crate::numbers::problem::{FieldError, Problem};
        let range = |field: String, x: f64, max: f64| {
            if x.is_finite() && (0.0..=max).contains(&x) {
                Ok(())
            } else {
                Err(BudgetError::OutOfRange(FieldError::new(
                    &field,
                    Problem::OutOfRange { min: 0.0, max },
                )))
            }
        };
        range("cny_per_usd".into(), self.cny_per_usd, 1000.0)?;
        for (i, r) in self.options.iter().enumerate() {
            for (name, x) in [
                ("rent", r.rent),
                ("storage", r.storage),
                ("egress", r.egress),
                ("time_cost", r.time_cost),
                ("risk_cost", r.risk_cost),
                ("total_expected", r.total_expected),
                ("total_p90", r.total_p90),
            ] {
                range(format!("options[{i}].{name}"), x, MAX_BUDGET_AMOUNT)?;
            }
            for (name, x) in [
                ("hours_expected", r.hours_expected),
                ("hours_p50", r.hours_p50),
                ("hours_p90", r.hours_p90),
            ] {
                range(format!("options[{i}].{name}"), x, 1e8)?;
            }
            if let Some(p) = r.rtt_ms {
                range(format!("options[{i}].rtt_ms"), p, 10_000.0)?;
            }
            if let Some(p) = r.latency_p99_ms {
                range(format!("options[{i}].latency_p99_ms"), p, 1e9)?;
            }
            if let Some(p) = r.price_per_gpu_hour {
                range(format!("options[{i}].price_per_gpu_hour"), p, 1e8)?;
            }
        }
        if let Some(t) = self.hybrid_total {
            range("hybrid_total".into(), t, MAX_BUDGET_AMOUNT)?;
        }
        if let Some(s) = &self.scenario {
            s.validate().map_err(BudgetError::Scenario)?;
        }
        Ok(())
    }
}

/// Reads a budget written by [`budget_json`].
pub fn parse_budget(text: &str) -> Result<Budget, BudgetError> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        format_version: Option<u64>,
    }
    let invalid = |e: serde_json::Error| BudgetError::Invalid(e.into());
    let head: Head = serde_json::from_str(text).map_err(invalid)?;
    if let Some(v) = head.format_version
        && v > u64::from(BUDGET_FORMAT_VERSION)
    {
        return Err(BudgetError::UnsupportedFormat {
            found: v,
            max: BUDGET_FORMAT_VERSION,
        });
    }
    let budget: Budget = serde_json::from_str(text).map_err(invalid)?;
    budget.validate()?;
    Ok(budget)
}

impl BudgetRow {
    /// The price's standing in English, e.g. `2025-11, 400 days old, official` (the age when the
    /// budget has a today, the evidence when the catalog gives it), ending with
    /// `, over 180 days` for a price older than [`STALE_PRICE_DAYS`].
    pub fn price_standing(&self) -> String {
        let mut s = self.price_as_of.clone();
        if let Some(age) = self.price_age_days {
            s.push_str(&format!(
                ", {age} {} old",
                if age == 1 { "day" } else { "days" }
            ));
        }
        match &self.price_evidence {
            Some(e) => s.push_str(&format!(", {e}")),
            None if self.price_is_estimate => s.push_str(", estimate"),
            None => {}
        }
        if self.price_age_days.is_some_and(|a| a > STALE_PRICE_DAYS) {
            s.push_str(&format!(", over {STALE_PRICE_DAYS} days"));
        }
        s
    }
}

/// A number with exactly two decimals, e.g. `432.80`.
pub(crate) fn cents(x: f64) -> String {
    format!("{x:.2}")
}

pub(crate) fn money_text(x: f64, c: Currency) -> String {
    format!("{} {}", group_thousands(&cents(x)), c.code())
}

/// Rounds a decimal amount to cents as a plain number (for callers holding `Decimal`s).
pub fn decimal_number(d: Decimal) -> f64 {
    f64::try_from(d.round_dp(2)).unwrap_or(0.0)
}
