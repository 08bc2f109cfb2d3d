//! Planning: every offer priced for a task — rent, storage, egress, time and risk — ranked, with
//! the decision, the hybrid plan and the break-even figures.
//!
//! Total = rent + storage + egress + time cost (value of time x wall-clock hours) + risk cost
//! (deadline penalty x miss probability), reported as an expectation (closed forms) and at P90
//! (the Monte Carlo trial at the 90th percentile of wall-clock time, with the rent, time and
//! penalty of that trial). Infeasible offers stay in the list with their reasons.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::breakeven::{BreakEven, break_even};
use crate::catalog::BillingMode;
use crate::catalog::{Catalog, Offer, RegionClass};
use crate::cost::{Context, evaluate};
use crate::decision::{Decision, HybridPlan, decide, hybrid_plan};
use crate::money::{Currency, Money};
use crate::reason::Reason;
use crate::risk::Draws;
use crate::task::{TaskError, TaskProfile};
use crate::tenancy::{Slowdown, Tenancy};

/// The plan format this build writes.
pub const PLAN_FORMAT_VERSION: u32 = 1;

/// Default Monte Carlo trials per offer: enough for a P90 within about 2 % (the standard error
/// of a 90th-percentile estimate from n samples is sqrt(0.09 / n) / density), and cheap enough
/// to recompute on every keystroke in the browser. Users can raise it.
pub const DEFAULT_TRIALS: u32 = 2_000;

/// A negotiated discount on one provider's list prices (0.85 = 15 % off).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderDiscount {
    /// Provider name as in the catalog.
    pub provider: String,
    /// Multiplier applied to the provider's prices, in (0, 1].
    #[schemars(with = "String")]
    pub factor: Decimal,
}

/// How to price: output currency, exchange rate, randomness, discounts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanSettings {
    /// Currency every output figure is in.
    pub currency: Currency,
    /// Yuan per US dollar, given by the user (shown as an assumption).
    #[schemars(with = "String")]
    pub cny_per_usd: Decimal,
    /// Seed of the Monte Carlo; the same seed gives the same answer on every target.
    pub seed: u64,
    /// Monte Carlo trials per offer.
    pub trials: u32,
    /// Provider discounts.
    #[serde(default)]
    pub discounts: Vec<ProviderDiscount>,
}

impl Default for PlanSettings {
    fn default() -> PlanSettings {
        PlanSettings {
            currency: Currency::Cny,
            cny_per_usd: Decimal::new(72, 1),
            seed: 1,
            trials: DEFAULT_TRIALS,
            discounts: vec![],
        }
    }
}

/// How the task's VRAM need compares with what an offer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VramFit {
    /// Need <= 90 % of visible VRAM.
    Fits,
    /// Need within the last 10 % of visible VRAM.
    Tight,
    /// Need above visible VRAM: infeasible.
    Oom,
}

/// One offer priced for the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OptionResult {
    /// The offer's id.
    pub offer_id: String,
    /// Provider.
    pub provider: String,
    /// GPU short name.
    pub gpu: String,
    /// GPUs in the offer.
    pub gpu_count: u32,
    /// How the GPU is shared.
    pub tenancy: Tenancy,
    /// Whether this is shared compute.
    pub shared: bool,
    /// How it is billed.
    pub billing_mode: BillingMode,
    /// Region class.
    pub region_class: RegionClass,
    /// Whether the task can run here at all.
    pub feasible: bool,
    /// Why not, when infeasible.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// Warnings on a feasible (or infeasible) offer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<Reason>,
    /// VRAM fit.
    pub vram_fit: VramFit,
    /// The run-time multiplier used, with its source (assumed, offer, measured).
    pub slowdown: Slowdown,
    /// Expected wall-clock hours (queue + running + rework).
    pub hours_expected: f64,
    /// Median wall-clock hours (Monte Carlo).
    pub hours_p50: f64,
    /// 90th-percentile wall-clock hours (Monte Carlo).
    pub hours_p90: f64,
    /// Expected running hours, rework included (what metered billing charges).
    pub running_hours_expected: f64,
    /// Expected queue hours.
    pub queue_hours_expected: f64,
    /// Expected hours lost to interruptions.
    pub rework_hours_expected: f64,
    /// Expected interruptions.
    pub interruptions_expected: f64,
    /// Probability of missing the deadline, when there is one (Monte Carlo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_miss_probability: Option<f64>,
    /// Estimated P99 latency including the round trip, milliseconds, for inference with a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_p99_ms: Option<f64>,
    /// Hours each run spends on measured IO beyond the GPU work (disk reads the GPU waits for,
    /// downloads before the start); absent when no measured IO rate applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_hours_per_run: Option<f64>,
    /// Expected rent.
    pub rent: Money,
    /// Storage (billed while stopped too) and system disk.
    pub storage: Money,
    /// Egress.
    pub egress: Money,
    /// Value of the wall-clock time spent.
    pub time_cost: Money,
    /// Expected deadline penalty.
    pub risk_cost: Money,
    /// Expected total.
    pub total_expected: Money,
    /// Total in the P90 trial.
    pub total_p90: Money,
}

/// An assumption the plan used, shown so the user can check or override it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Assumption {
    /// Stable id, e.g. `slowdown.time_sliced`.
    pub id: String,
    /// The value used.
    pub value: String,
    /// Where it comes from and how to override it.
    pub source: String,
}

/// The whole answer for one task and catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanResult {
    /// Version of this document's format; always the first field.
    pub format_version: u32,
    /// Currency of every figure.
    pub currency: Currency,
    /// The settings used (seed, trials, rate, discounts).
    pub settings: PlanSettings,
    /// Offers ranked: feasible by expected total, then infeasible.
    pub options: Vec<OptionResult>,
    /// The recommendation and its reasons.
    pub decision: Decision,
    /// The phases of a hybrid plan, each priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hybrid: Option<HybridPlan>,
    /// Break-even figures with chart points.
    pub break_even: BreakEven,
    /// Assumptions behind the numbers.
    pub assumptions: Vec<Assumption>,
    /// Distinct price dates of the catalog, oldest first as written.
    pub price_dates: Vec<String>,
}

/// Why a plan could not be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlanError {
    /// The task is invalid.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// An offer is unusable (a catalog built in code rather than parsed).
    #[error("offer {id}, field {field}: {message}")]
    Offer {
        /// The offer's id.
        id: String,
        /// The field at fault.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A setting is out of range.
    #[error("setting {field}: {message}")]
    Setting {
        /// The setting.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl PlanSettings {
    /// Checks the settings' ranges.
    pub fn validate(&self) -> Result<(), PlanError> {
        let fail = |field: &str, message: &str| {
            Err(PlanError::Setting {
                field: field.to_owned(),
                message: message.to_owned(),
            })
        };
        if self.cny_per_usd <= Decimal::ZERO || self.cny_per_usd > Decimal::from(1000) {
            return fail("cny_per_usd", "must be greater than 0 and at most 1000");
        }
        if self.trials == 0 || self.trials > 1_000_000 {
            return fail("trials", "must be between 1 and 1000000");
        }
        for d in &self.discounts {
            if d.factor <= Decimal::ZERO || d.factor > Decimal::ONE {
                return fail(
                    "discounts",
                    "a discount factor must be greater than 0 and at most 1",
                );
            }
        }
        Ok(())
    }
}

/// Prices every offer of `catalog` for `task` and decides.
pub fn plan(
    task: &TaskProfile,
    catalog: &Catalog,
    settings: &PlanSettings,
) -> Result<PlanResult, PlanError> {
    task.validate()?;
    settings.validate()?;
    for offer in &catalog.offers {
        crate::catalog::validate_offer(offer).map_err(|(field, message)| PlanError::Offer {
            id: offer.id.clone(),
            field,
            message,
        })?;
    }
    let draws = Draws::new(settings.seed, settings.trials as usize, task.runs);
    let ctx = Context::new(task, settings);
    let mut options: Vec<OptionResult> = catalog
        .offers
        .iter()
        .map(|o| evaluate(&ctx, o, Some(&draws)))
        .collect();
    rank(&mut options);
    let decision = decide(task, &options);
    let hybrid = hybrid_plan(&ctx, task, catalog, &decision);
    let break_even = break_even(&ctx, task, catalog, &options);
    let mut price_dates: Vec<String> = catalog.offers.iter().map(|o| o.as_of.clone()).collect();
    price_dates.sort();
    price_dates.dedup();
    Ok(PlanResult {
        format_version: PLAN_FORMAT_VERSION,
        currency: settings.currency,
        settings: settings.clone(),
        options,
        decision,
        hybrid,
        break_even,
        assumptions: assumptions(settings, catalog),
        price_dates,
    })
}

/// Every offer priced without the Monte Carlo (closed forms), ranked.
pub fn evaluate_for(ctx: &Context<'_>, catalog: &Catalog) -> Vec<OptionResult> {
    let mut options: Vec<OptionResult> = catalog
        .offers
        .iter()
        .map(|o| evaluate(ctx, o, None))
        .collect();
    rank(&mut options);
    options
}

/// Feasible offers first, cheapest expected total first; ties by P90 total, then id.
pub fn rank(options: &mut [OptionResult]) {
    options.sort_by(|a, b| {
        b.feasible
            .cmp(&a.feasible)
            .then(a.total_expected.amount.cmp(&b.total_expected.amount))
            .then(a.total_p90.amount.cmp(&b.total_p90.amount))
            .then(a.offer_id.cmp(&b.offer_id))
    });
}

/// Finds the offer with `id`.
pub fn find_offer<'a>(catalog: &'a Catalog, id: &str) -> Option<&'a Offer> {
    catalog.offers.iter().find(|o| o.id == id)
}

fn assumptions(settings: &PlanSettings, catalog: &Catalog) -> Vec<Assumption> {
    let mut list = vec![
        Assumption {
            id: "hours_per_month".into(),
            value: "730".into(),
            source: "the cloud calculators' month (Infracost HourToMonthUnitMultiplier)".into(),
        },
        Assumption {
            id: "cny_per_usd".into(),
            value: settings.cny_per_usd.to_string(),
            source: "exchange rate given by the user".into(),
        },
        Assumption {
            id: "multi_gpu_efficiency".into(),
            value: crate::cost::MULTI_GPU_EFFICIENCY.to_string(),
            source: "share of linear speed-up kept when work spreads over several GPUs (assumed)".into(),
        },
        Assumption {
            id: "interruption_rate".into(),
            value: "λ = -ln(1 - p_month) / 730".into(),
            source: "Poisson interruptions from the offer's monthly probability (AWS Spot Advisor bands)".into(),
        },
        Assumption {
            id: "cold_storage_per_gb_month".into(),
            value: format!("{} CNY / {} USD", crate::decision::COLD_STORAGE_CNY, crate::decision::COLD_STORAGE_USD),
            source: "object storage, infrequent-access tier (assumed typical list price)".into(),
        },
    ];
    let mut seen = std::collections::BTreeSet::new();
    for o in &catalog.offers {
        if o.slowdown.is_none() && seen.insert(o.tenancy) {
            let s = o.tenancy.default_slowdown();
            list.push(Assumption {
                id: format!("slowdown.{}", o.tenancy.id()),
                value: format!("median {:.2}, P99 {:.2}", s.median, s.p99),
                source: "published noisy-neighbour measurements (see core/README.md); override per offer or with a probe profile".into(),
            });
        }
    }
    list
}
