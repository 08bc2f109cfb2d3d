//! Planning: every offer priced for a task — rent, storage, egress, time and risk — ranked, with
//! the decision, the hybrid plan and the break-even figures.
//!
//! Total = rent + storage + egress + time cost (value of time x wall-clock hours) + risk cost
//! (deadline penalty x miss probability), reported as an expectation (closed forms) and at P90
//! (the Monte Carlo trial at the 90th percentile of wall-clock time, with the rent, time and
//! penalty of that trial). Infeasible offers stay in the list with their reasons.

pub mod assumption;
pub mod breakeven;
pub mod context;
pub mod cost;
pub mod decision;
pub mod feasibility;
pub mod hybrid;
pub mod job;
pub mod option;
pub mod performance;
pub mod policy;
pub mod reason;
pub mod replay;
pub mod risk;
pub mod security;
pub mod settings;
pub mod time;

pub use assumption::Assumption;
pub use decision::{Choice, Decision};
pub use feasibility::VramFit;
pub use option::OptionResult;
pub use reason::{Reason, RuleId};
pub use settings::{DEFAULT_TRIALS, PlanError, PlanSettings, ProviderDiscount};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Currency;
use crate::numbers::parallel;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::catalog::Catalog;
use crate::offers::trace::AttachedTrace;
use crate::offers::validate::validate_offer;
use crate::plan::breakeven::{BreakEven, break_even};
use crate::plan::context::Context;
use crate::plan::cost::evaluate_parts;
use crate::plan::decision::decide;
use crate::plan::hybrid::{HybridPlan, hybrid_plan};
use crate::plan::policy::{add_risk, fallback_for, policy_walks};
use crate::plan::time::Draws;
use crate::task::document::TaskProfile;

/// The plan format this build writes.
pub const PLAN_FORMAT_VERSION: u32 = 1;

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

/// Prices every offer of `catalog` for `task` and decides.
pub fn plan(
    task: &TaskProfile,
    catalog: &Catalog,
    settings: &PlanSettings,
) -> Result<PlanResult, PlanError> {
    plan_with_traces(task, catalog, &[], settings)
}

/// [`plan`], with preemption traces attached to offers of the catalog: their offers' risk comes
/// from the traces (fitted and replayed) instead of the rows' assumptions.
pub fn plan_with_traces(
    task: &TaskProfile,
    catalog: &Catalog,
    traces: &[AttachedTrace],
    settings: &PlanSettings,
) -> Result<PlanResult, PlanError> {
    task.validate()?;
    settings.validate().map_err(PlanError::Setting)?;
    for offer in &catalog.offers {
        validate_offer(offer).map_err(|error| PlanError::Offer {
            id: offer.id.clone(),
            error,
        })?;
        if let Some(id) = &offer.interruptions.fallback
            && !catalog
                .offers
                .iter()
                .any(|o| &o.id == id && !o.interruptions.interrupts())
        {
            return Err(PlanError::Offer {
                id: offer.id.clone(),
                error: FieldError::new("fallback", Problem::FallbackNotFound { id: id.clone() }),
            });
        }
    }
    let draws = Draws::new(settings.seed, settings.trials as usize, task.runs);
    let ctx = Context::new(task, settings).with_evidence(&catalog.offers, traces);
    let ctx = {
        let walks = policy_walks(&ctx);
        ctx.with_walks(walks)
    };
    // Every offer priced once; then each interruptible one prices its policies, moving to an
    // offer priced in the first pass.
    // Offers are priced in parallel where the build allows, each into its own place.
    let parts = parallel::map(&catalog.offers, |o| evaluate_parts(&ctx, o, Some(&draws)));
    let indexed: Vec<usize> = (0..catalog.offers.len()).collect();
    let mut options: Vec<OptionResult> = parallel::map(&indexed, |&i| {
        let (Some(offer), Some((option, _, time))) = (catalog.offers.get(i), parts.get(i)) else {
            return None;
        };
        let mut option = option.clone();
        // Only an interruptible offer prices policies that move (add_risk leaves the others).
        let interruptible =
            time.inputs.interruptions_per_hour > 0.0 || ctx.trace_for(offer).is_some();
        let twin = interruptible
            .then(|| fallback_for(&ctx, offer))
            .flatten()
            .and_then(|f| {
                let j = catalog.offers.iter().position(|o| o.id == f.id)?;
                let (option, _, time) = parts.get(j)?;
                Some((f, option, time))
            });
        add_risk(&ctx, offer, &mut option, time, &draws, twin);
        Some(option)
    })
    .into_iter()
    .flatten()
    .collect();
    rank(&mut options);
    let decision = decide(task, &options);
    let hybrid = hybrid_plan(&ctx, catalog, &decision, &options);
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

/// Feasible offers first, cheapest expected total first; ties by P90 total, then id.
pub fn rank(options: &mut [OptionResult]) {
    options.sort_by(|a, b| {
        b.feasible
            .cmp(&a.feasible)
            .then(
                a.costs
                    .total_expected
                    .amount
                    .cmp(&b.costs.total_expected.amount),
            )
            .then(a.costs.total_p90.amount.cmp(&b.costs.total_p90.amount))
            .then(a.offer_id.cmp(&b.offer_id))
    });
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
            value: crate::plan::performance::MULTI_GPU_EFFICIENCY.to_string(),
            source: "share of linear speed-up kept when work spreads over several GPUs (assumed)".into(),
        },
        Assumption {
            id: "interruption_rate".into(),
            value: "per running hour, or 1 / MTBI, or -ln(1 - p_month) / 730".into(),
            source: "Poisson preemptions at the offer's rate (spot rows: the public V100 spot traces of Can't Be Late, NSDI 2024, and the AWS Spot Advisor bands); a trace attached to an offer replaces it".into(),
        },
        Assumption {
            id: "capacity_gap".into(),
            value: "the offer's capacity_gap_hours, exponential".into(),
            source: "hours without an instance after a preemption, unbilled (spot rows: 1.83 h pooled from the same traces)".into(),
        },
        Assumption {
            id: "cold_storage_per_gb_month".into(),
            value: format!("{} CNY / {} USD", crate::plan::hybrid::COLD_STORAGE_CNY, crate::plan::hybrid::COLD_STORAGE_USD),
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
