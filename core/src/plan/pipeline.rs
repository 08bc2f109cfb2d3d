//! The plan's pipeline: checks, every offer priced (in one piece or in shares), then ranked,
//! decided, with the hybrid plan and the break-even figures.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Currency;
use crate::numbers::parallel;
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::catalog::Catalog;
use crate::offers::offer::Offer;
use crate::offers::trace::AttachedTrace;
use crate::offers::validate::validate_offer;
use crate::plan::assumption::Assumption;
use crate::plan::breakeven::{BreakEven, break_even};
use crate::plan::context::Context;
use crate::plan::cost::{Time, Work, evaluate_parts, time_inputs, work_on};
use crate::plan::decision::{Decision, decide};
use crate::plan::feasibility::{self, Needs};
use crate::plan::headline::Headline;
use crate::plan::hybrid::{HybridPlan, hybrid_plan};
use crate::plan::option::OptionResult;
use crate::plan::policy::{add_risk, fallback_for, policy_walks};
use crate::plan::settings::{PlanError, PlanSettings};
use crate::plan::time::{Draws, FLUID_PREEMPTIONS, expect};
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
    let prepared = Prepared::new(task, catalog, traces, settings)?;
    let options = prepared.price_all();
    Ok(prepared.finish(options))
}

/// The headline of the plan [`plan_with_traces`] gives (see [`PlanResult::headline`]), without
/// what it does not show: the hybrid plan, the break-even sweeps and the assumptions. What the
/// site's first answer prices (with [`crate::plan::headline::FIRST_ANSWER_TRIALS`]).
pub fn plan_headline(
    task: &TaskProfile,
    catalog: &Catalog,
    traces: &[AttachedTrace],
    settings: &PlanSettings,
) -> Result<Headline, PlanError> {
    let mut options = Prepared::new(task, catalog, traces, settings)?.price_all();
    rank(&mut options);
    let decision = decide(task, &options);
    Ok(Headline::of(settings.trials, &decision, &options))
}

impl PlanResult {
    /// Its headline: the decision and the first feasible options.
    pub fn headline(&self) -> Headline {
        Headline::of(self.settings.trials, &self.decision, &self.options)
    }
}

/// One plan checked and set up: what pricing any of its offers shares. [`plan_with_traces`]
/// prices every offer with it at once; [`crate::plan::share`] prices the offers in shares (one
/// per Web Worker, say) and puts the plan together afterwards, with the same result to the bit.
pub(crate) struct Prepared<'a> {
    ctx: Context<'a>,
    catalog: &'a Catalog,
    draws: Draws,
}

impl<'a> Prepared<'a> {
    /// Checks the task, the settings and every offer, and prepares the draws and the context.
    pub(crate) fn new(
        task: &'a TaskProfile,
        catalog: &'a Catalog,
        traces: &'a [AttachedTrace],
        settings: &'a PlanSettings,
    ) -> Result<Prepared<'a>, PlanError> {
        task.validate()?;
        settings.validate().map_err(PlanError::Setting)?;
        // Each id's first offer and whether it can be fallen back to, looked up per offer.
        let mut steady: BTreeMap<&str, bool> = BTreeMap::new();
        for o in &catalog.offers {
            *steady.entry(o.id.as_str()).or_default() |= !o.interruptions.interrupts();
        }
        for offer in &catalog.offers {
            validate_offer(offer).map_err(|error| PlanError::Offer {
                id: offer.id.clone(),
                error,
            })?;
            if let Some(id) = &offer.interruptions.fallback
                && !steady.get(id.as_str()).copied().unwrap_or(false)
            {
                return Err(PlanError::Offer {
                    id: offer.id.clone(),
                    error: FieldError::new(
                        "fallback",
                        Problem::FallbackNotFound { id: id.clone() },
                    ),
                });
            }
        }
        let draws = Draws::new(settings.seed, settings.trials as usize, task.runs);
        let ctx = Context::new(task, settings).with_evidence(&catalog.offers, traces);
        let ctx = {
            let walks = policy_walks(&ctx);
            ctx.with_walks(walks)
        };
        Ok(Prepared {
            ctx,
            catalog,
            draws,
        })
    }

    /// The options of every offer of the catalog, in catalog order (see [`Prepared::price`]).
    fn price_all(&self) -> Vec<OptionResult> {
        let places: Vec<usize> = (0..self.catalog.offers.len()).collect();
        self.price(&places).into_iter().map(|(_, o)| o).collect()
    }

    /// The options of the offers at `places` in the catalog, with their places, in that order,
    /// each with its risk and policies (places past the catalog's end are left out). An offer's
    /// option depends on no other offer but the one its policies fall back to, so any split of
    /// the places gives the same options.
    pub(crate) fn price(&self, places: &[usize]) -> Vec<(usize, OptionResult)> {
        let offers = &self.catalog.offers;
        // First the offers the policies of the interruptible ones move to, priced once and kept
        // (in parallel where the build allows); then each offer asked for, priced and given its
        // policies at once, so that its Monte Carlo samples are dropped as soon as it is done:
        // memory holds the fallbacks' samples and one offer's per thread, whatever the catalog.
        let twins: Vec<Option<usize>> = places.iter().map(|&i| self.twin_of(i)).collect();
        let mut needed: Vec<usize> = twins.iter().flatten().copied().collect();
        needed.sort_unstable();
        needed.dedup();
        let priced = parallel::map(&needed, |&j| {
            offers
                .get(j)
                .map(|o| evaluate_parts(&self.ctx, o, Some(&self.draws)))
        });
        let kept: BTreeMap<usize, Parts> = needed
            .into_iter()
            .zip(priced)
            .filter_map(|(j, p)| Some((j, p?)))
            .collect();
        let asked: Vec<(usize, Option<usize>)> = places.iter().copied().zip(twins).collect();
        let options = parallel::map(&asked, |&(i, twin)| {
            let offer = offers.get(i)?;
            // An offer priced here is moved into its option; one kept for the offers falling
            // back to it is copied.
            let own_time;
            let (mut option, time) = match kept.get(&i) {
                Some((option, _, time)) => (option.clone(), time),
                None => {
                    let (option, _, time) = evaluate_parts(&self.ctx, offer, Some(&self.draws));
                    own_time = time;
                    (option, &own_time)
                }
            };
            let twin = twin.and_then(|j| {
                let (twin_option, _, twin_time) = kept.get(&j)?;
                Some((offers.get(j)?, twin_option, twin_time))
            });
            add_risk(&self.ctx, offer, &mut option, time, &self.draws, twin);
            Some((i, option))
        });
        let mut priced = Vec::with_capacity(options.len());
        priced.extend(options.into_iter().flatten());
        priced
    }

    /// The places of the offers share `index` of `count` prices: see [`parallel::deal`], with each
    /// offer weighed by [`Prepared::share_weight`].
    pub(crate) fn share_places(&self, index: usize, count: usize) -> Vec<usize> {
        let needs = Needs::of(self.ctx.task);
        let weights: Vec<f64> = self
            .catalog
            .offers
            .iter()
            .map(|offer| self.share_weight(&needs, offer))
            .collect();
        parallel::deal(&weights, count)
            .into_iter()
            .enumerate()
            .filter(|&(_, k)| k == index)
            .map(|(place, _)| place)
            .collect()
    }

    /// About how long pricing `offer` takes, in units of an offer that is never interrupted:
    /// nearly all of a plan's time goes to walking the Monte Carlo trials of the feasible
    /// interruptible offers, each about in proportion to the preemptions a job meets there (the
    /// closed form's expectation, capped where the walk takes its shortcut).
    fn share_weight(&self, needs: &Needs, offer: &Offer) -> f64 {
        let walked = self.ctx.task.service.is_none()
            && (offer.interruptions.interrupts() || self.ctx.trace_for(offer).is_some())
            && feasibility::check(needs, offer).vetoes.is_empty();
        if !walked {
            return 1.0;
        }
        let work = work_on(&self.ctx, offer, &mut Vec::new());
        let e = expect(&time_inputs(&self.ctx, offer, &work));
        if e.never_finishes || !e.interruptions.is_finite() {
            1.0
        } else {
            1.0 + e.interruptions.clamp(0.0, FLUID_PREEMPTIONS)
        }
    }

    /// The place of the offer that the policies of the offer at `i` move to: only an
    /// interruptible offer (a rate of interruptions or a trace) has one.
    fn twin_of(&self, i: usize) -> Option<usize> {
        let offer = self.catalog.offers.get(i)?;
        if !(offer.interruptions.interrupts() || self.ctx.trace_for(offer).is_some()) {
            return None;
        }
        let fallback = fallback_for(&self.ctx, offer)?;
        self.ctx.place_of(&fallback.id)
    }

    /// The plan of every offer's option (in any order): ranked, decided, with the hybrid plan,
    /// the break-even figures and the assumptions.
    pub(crate) fn finish(&self, mut options: Vec<OptionResult>) -> PlanResult {
        let (task, settings, catalog) = (self.ctx.task, self.ctx.settings, self.catalog);
        rank(&mut options);
        let decision = decide(task, &options);
        let hybrid = hybrid_plan(&self.ctx, &decision, &options);
        let break_even = break_even(&self.ctx, task, catalog, &options);
        let mut price_dates: Vec<String> = catalog.offers.iter().map(|o| o.as_of.clone()).collect();
        price_dates.sort();
        price_dates.dedup();
        PlanResult {
            format_version: PLAN_FORMAT_VERSION,
            currency: settings.currency,
            settings: settings.clone(),
            options,
            decision,
            hybrid,
            break_even,
            assumptions: assumptions(task, settings, catalog),
            price_dates,
        }
    }
}

/// An offer priced before its policies: its option, its work and its time.
type Parts = (OptionResult, Work, Time);

/// Feasible offers first, cheapest expected total first; ties by P90 total, then id (a stable
/// sort: options alike in all four keep their order).
pub fn rank(options: &mut Vec<OptionResult>) {
    // The places are sorted and the options then moved once each: an option is over a kilobyte,
    // and sorting them directly moved each several times.
    let mut order: Vec<usize> = (0..options.len()).collect();
    order.sort_by(|&i, &j| match (options.get(i), options.get(j)) {
        (Some(a), Some(b)) => ranked(a, b),
        _ => i.cmp(&j),
    });
    permute(options, &order);
}

/// The ranking's order of two options.
fn ranked(a: &OptionResult, b: &OptionResult) -> std::cmp::Ordering {
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
}

/// Rearranges `items` so that place `k` holds what was at `order[k]` (`order` a permutation of
/// the places); each item is moved out once and back once.
fn permute<T>(items: &mut Vec<T>, order: &[usize]) {
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(
        order
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take)),
    );
}

fn assumptions(task: &TaskProfile, settings: &PlanSettings, catalog: &Catalog) -> Vec<Assumption> {
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
        match &task.data_parallel {
            Some(dp) => Assumption {
                id: "multi_gpu_links".into(),
                value: dp
                    .overlap
                    .unwrap_or(crate::plan::scaling::DEFAULT_OVERLAP)
                    .to_string(),
                source: "share of the backward pass the BF16 exchange of each step hides behind (0 unless the task says: fitted to published DDP runs); all-reduce bus bandwidths of public nccl-tests runs per link (NVLink, PCIe, node network)".into(),
            },
            None => Assumption {
                id: "multi_gpu_efficiency".into(),
                value: crate::plan::performance::MULTI_GPU_EFFICIENCY.to_string(),
                source: "share of linear speed-up kept when work spreads over several GPUs (assumed)".into(),
            },
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
    if catalog
        .offers
        .iter()
        .any(|o| o.slowdown.is_none() && o.tenancy.sharing().is_some())
    {
        list.push(Assumption {
            id: "neighbour_load".into(),
            value: "1 (neighbours always busy) unless measured, typed by you or stated by the row".into(),
            source: "work-conserving sharing fitted to Tally's 12 A100 pairs (ASPLOS 2025); a probe profile's GPU utilisation before our load measures it".into(),
        });
    }
    // One row for every queue shape in use, so the list (and the printout) stays short.
    let spread = |o: &&Offer| {
        o.queue_trace.is_none()
            && (o.queue_median_hours.is_none() && o.queue_wait_hours.is_some_and(|m| m > 0.0)
                || o.queue_median_hours.is_some()
                    && (o.queue_p0.is_none() || o.queue_sigma.is_none()))
    };
    let kinds: Vec<crate::offers::queue::PoolKind> = crate::offers::queue::PoolKind::ALL
        .into_iter()
        .filter(|k| {
            catalog
                .offers
                .iter()
                .filter(spread)
                .any(|o| o.pool_kind() == *k)
        })
        .collect();
    if !kinds.is_empty() {
        let ids: Vec<&str> = kinds.iter().map(|k| k.id()).collect();
        let shapes: Vec<String> = kinds
            .iter()
            .map(|k| {
                let (p0, median, sigma) = k.default_queue();
                format!(
                    "{}: at once with probability {p0}, else log-normal with median {:.0} s, sigma {sigma}",
                    k.id(),
                    median * 3600.0
                )
            })
            .collect();
        list.push(Assumption {
            id: format!("queue.{}", ids.join("+")),
            value: shapes.join("; "),
            source: "fitted to the Kaplan-Meier waits of Alibaba's 2023 GPU-sharing cluster (alibaba/clusterdata, openb); spreads a row's mean wait; a queue trace replaces it".into(),
        });
    }
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::permute;

    proptest! {
        /// Moving the items by the order a stable sort of their places gives is the stable sort
        /// of the items themselves (what `rank` relies on), ties and all.
        #[test]
        fn permuting_by_sorted_places_is_a_stable_sort(keys in proptest::collection::vec(0_u8..6, 0..60)) {
            let items: Vec<(u8, usize)> = keys.iter().copied().zip(0..).collect();
            let mut order: Vec<usize> = (0..items.len()).collect();
            order.sort_by_key(|&i| items[i].0);
            let mut moved = items.clone();
            permute(&mut moved, &order);
            let mut sorted = items;
            sorted.sort_by_key(|&(k, _)| k);
            prop_assert_eq!(moved, sorted);
        }
    }
}
