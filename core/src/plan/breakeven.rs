//! Break-even figures, each with the points to draw its chart.
//!
//! - Hours per month above which a monthly plan beats pay-as-you-go: monthly price / hourly price.
//! - Months per year above which a yearly plan beats monthly: yearly price / monthly price.
//! - The work size above which the best dedicated offer's total beats the best shared one's:
//!   the task is re-priced (closed forms) at work sizes from 1/10 to 64 times the given one.

use std::collections::{BTreeMap, BTreeSet};

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Money;
use crate::numbers::parallel;
use crate::offers::billing::BillingMode;
use crate::offers::billing::HOURS_PER_MONTH;
use crate::offers::catalog::Catalog;
use crate::offers::offer::Offer;
use crate::plan::context::Context;
use crate::plan::cost::SweepOffer;
use crate::plan::option::OptionResult;
use crate::task::document::TaskProfile;

/// One chart point: an x value and the two competing costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// The x value (hours per month, months per year, or work hours).
    pub x: f64,
    /// The first line's cost (pay-as-you-go, monthly, or shared).
    pub a: Money,
    /// The second line's cost (monthly, yearly, or dedicated).
    pub b: Money,
}

/// Where a longer commitment starts to pay, for one GPU model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitmentBreakEven {
    /// GPU short name.
    pub gpu: String,
    /// The shorter-commitment offer (per GPU figures).
    pub short_offer: String,
    /// The longer-commitment offer.
    pub long_offer: String,
    /// The break-even x (hours per month, or months per year).
    pub break_even: f64,
    /// Chart points.
    pub points: Vec<Point>,
}

/// The work size where dedicated starts to beat shared for this task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunLengthBreakEven {
    /// Work hours (on the reference GPU) from which the best dedicated total is lower; absent if
    /// it never is within the range, 0 if it always is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_hours: Option<f64>,
    /// Chart points: x = work hours, a = best shared total, b = best dedicated total.
    pub points: Vec<Point>,
}

/// All break-even figures of a plan.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct BreakEven {
    /// Hours per month above which monthly beats pay-as-you-go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monthly_vs_pay_as_you_go: Option<CommitmentBreakEven>,
    /// Months per year above which yearly beats monthly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yearly_vs_monthly: Option<CommitmentBreakEven>,
    /// Work size above which dedicated beats shared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedicated_vs_shared: Option<RunLengthBreakEven>,
}

/// When a choice starts to pay, read against the range it is measured over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Payoff {
    /// At any use within the range.
    Always,
    /// From this value on (hours per month, months per year, or work hours).
    From(f64),
    /// Never within the range: a month has 730 hours, a year 12 months, and the work-size sweep
    /// ends at 64 times the task.
    Never,
}

/// The most hours a month holds: a monthly plan that pays off only above this never does.
pub const MONTH_LIMIT_HOURS: f64 = HOURS_PER_MONTH;
/// The most months a year holds.
pub const YEAR_LIMIT_MONTHS: f64 = 12.0;

/// Reads a break-even figure against its range: `None` (no crossing found) or a value beyond
/// `limit` is [`Payoff::Never`], a value of zero or less [`Payoff::Always`].
pub fn payoff(value: Option<f64>, limit: Option<f64>) -> Payoff {
    match value {
        None => Payoff::Never,
        Some(x) if x.is_nan() => Payoff::Never,
        Some(x) if x <= 0.0 => Payoff::Always,
        Some(x) if limit.is_some_and(|l| x > l) => Payoff::Never,
        Some(x) => Payoff::From(x),
    }
}

impl BreakEven {
    /// Whether and from how many hours a month a monthly plan beats pay-as-you-go.
    pub fn monthly_payoff(&self) -> Option<Payoff> {
        let b = self.monthly_vs_pay_as_you_go.as_ref()?;
        Some(payoff(Some(b.break_even), Some(MONTH_LIMIT_HOURS)))
    }

    /// Whether and from how many months a year a yearly plan beats monthly.
    pub fn yearly_payoff(&self) -> Option<Payoff> {
        let b = self.yearly_vs_monthly.as_ref()?;
        Some(payoff(Some(b.break_even), Some(YEAR_LIMIT_MONTHS)))
    }

    /// Whether and from what work size dedicated beats shared.
    pub fn run_length_payoff(&self) -> Option<Payoff> {
        let b = self.dedicated_vs_shared.as_ref()?;
        Some(payoff(b.work_hours, None))
    }
}

/// Work-size factors swept for the dedicated-vs-shared break-even.
const FACTORS: [f64; 11] = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 24.0, 32.0, 64.0];

/// Computes the break-even figures around the plan's ranked options.
pub fn break_even(
    ctx: &Context<'_>,
    task: &TaskProfile,
    catalog: &Catalog,
    options: &[OptionResult],
) -> BreakEven {
    // GPU models in ranking order (feasible first, each once): the first that has both offers of
    // a pair wins.
    let mut seen = BTreeSet::new();
    let gpus: Vec<&str> = options
        .iter()
        .filter(|o| o.feasible)
        .chain(options)
        .map(|o| o.gpu.as_str())
        .filter(|g| seen.insert(*g))
        .collect();
    let cheapest = Cheapest::of(ctx, catalog);
    let monthly_vs_payg = gpus.iter().find_map(|g| {
        commitment(
            ctx,
            &cheapest,
            g,
            BillingMode::PayAsYouGo,
            BillingMode::Monthly,
        )
    });
    let yearly_vs_monthly = gpus
        .iter()
        .find_map(|g| commitment(ctx, &cheapest, g, BillingMode::Monthly, BillingMode::Yearly));
    BreakEven {
        monthly_vs_pay_as_you_go: monthly_vs_payg,
        yearly_vs_monthly,
        dedicated_vs_shared: run_length(ctx, task, catalog),
    }
}

/// Per-GPU price of an offer in output currency (per hour or per term).
fn per_gpu(ctx: &Context<'_>, offer: &Offer) -> Decimal {
    ctx.offer_money(offer, offer.price) / Decimal::from(offer.gpu_count)
}

/// The cheapest whole-card offer per GPU and billing mode (per GPU, ties by id), found in one
/// pass over the catalog.
struct Cheapest<'c>(BTreeMap<(&'c str, &'static str), (Decimal, &'c Offer)>);

impl<'c> Cheapest<'c> {
    fn of(ctx: &Context<'_>, catalog: &'c Catalog) -> Cheapest<'c> {
        let mut best: BTreeMap<(&'c str, &'static str), (Decimal, &'c Offer)> = BTreeMap::new();
        for o in catalog.offers.iter().filter(|o| !o.tenancy.is_slice()) {
            let price = per_gpu(ctx, o);
            best.entry((o.gpu.as_str(), o.billing_mode.id()))
                .and_modify(|b| {
                    if (price, &o.id) < (b.0, &b.1.id) {
                        *b = (price, o);
                    }
                })
                .or_insert((price, o));
        }
        Cheapest(best)
    }

    fn get(&self, gpu: &str, mode: BillingMode) -> Option<&'c Offer> {
        self.0.get(&(gpu, mode.id())).map(|b| b.1)
    }
}

fn commitment(
    ctx: &Context<'_>,
    cheapest: &Cheapest<'_>,
    gpu: &str,
    short: BillingMode,
    long: BillingMode,
) -> Option<CommitmentBreakEven> {
    let s = cheapest.get(gpu, short)?;
    let l = cheapest.get(gpu, long)?;
    let (short_price, long_price) = (per_gpu(ctx, s), per_gpu(ctx, l));
    let ratio = long_price.checked_div(short_price)?;
    let (max_x, steps) = if short == BillingMode::PayAsYouGo {
        (HOURS_PER_MONTH, 10)
    } else {
        (12.0, 12)
    };
    let points = (0..=steps)
        .map(|i| {
            let x = max_x * f64::from(i) / f64::from(steps);
            Point {
                x,
                a: ctx.money(short_price * crate::numbers::money::dec(x)),
                b: ctx.money(long_price),
            }
        })
        .collect();
    Some(CommitmentBreakEven {
        gpu: gpu.to_owned(),
        short_offer: s.id.clone(),
        long_offer: l.id.clone(),
        break_even: f64::try_from(ratio.round_dp(2)).unwrap_or(0.0),
        points,
    })
}

/// The lowest expected totals of the feasible shared and dedicated offers (in that order) at the
/// task of `ctx`. Offers are priced from the lowest lower bound ([`SweepOffer::total_at_least`],
/// a few float operations) up, those without a bound first, and one whose bound is already above
/// the lowest total of its kind is skipped: it cannot be the cheapest, so the lowest totals are
/// the ones pricing every offer finds.
fn cheapest_totals(ctx: &Context<'_>, swept: &[SweepOffer<'_, '_>]) -> [Option<Decimal>; 2] {
    let priced: Vec<_> = swept.iter().map(|s| (s, s.inputs(ctx))).collect();
    // Lower bounds (none: minus infinity, never beaten), lowest first.
    let mut order: Vec<(f64, usize)> = priced
        .iter()
        .enumerate()
        .map(|(i, (s, (_, inputs)))| (s.total_at_least(inputs).unwrap_or(f64::NEG_INFINITY), i))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // The lowest totals of each kind, exact and as a float.
    let mut best: [Option<(Decimal, f64)>; 2] = [None, None];
    for (bound, i) in order {
        let Some((s, (work, inputs))) = priced.get(i) else {
            continue;
        };
        let kind = usize::from(!s.shared());
        let lowest = best.get(kind).copied().flatten();
        if lowest.is_some_and(|(_, lowest)| bound > lowest * (1.0 + 1e-9) + 1e-6) {
            debug_assert!(
                s.expected_total(ctx, work, inputs)
                    .is_none_or(|t| f64::try_from(t).is_ok_and(|t| t >= bound)),
                "{}: the bound is above the total",
                s.offer.id
            );
            continue;
        }
        if let Some(total) = s.expected_total(ctx, work, inputs)
            && let Some(slot) = best.get_mut(kind)
            && slot.is_none_or(|(b, _)| total < b)
        {
            *slot = Some((total, f64::try_from(total).unwrap_or(f64::INFINITY)));
        }
    }
    best.map(|b| b.map(|(total, _)| total))
}

fn run_length(
    ctx: &Context<'_>,
    task: &TaskProfile,
    catalog: &Catalog,
) -> Option<RunLengthBreakEven> {
    if task.service.is_some() || task.work_hours <= 0.0 {
        return None;
    }
    // What does not depend on the work size, once per offer; offers that feasibility vetoes
    // are left out (it does not read the work).
    let swept: Vec<SweepOffer<'_, '_>> = catalog
        .offers
        .iter()
        .filter_map(|o| SweepOffer::new(ctx, o))
        .collect();
    // Each size of the sweep priced on its own (in parallel where the build allows).
    let points: Vec<Point> = parallel::map(&FACTORS, |factor| {
        let scaled = TaskProfile {
            work_hours: task.work_hours * factor,
            ..task.clone()
        };
        let scaled_ctx = Context::new(&scaled, ctx.settings);
        match cheapest_totals(&scaled_ctx, &swept) {
            [Some(a), Some(b)] => Some(Point {
                x: scaled.work_hours,
                a: ctx.money(a),
                b: ctx.money(b),
            }),
            _ => None,
        }
    })
    .into_iter()
    .flatten()
    .collect();
    if points.is_empty() {
        return None;
    }
    let cheaper = |p: &Point| p.b.amount <= p.a.amount;
    // Dedicated beats shared *from* a work size when it is cheaper there and at every larger
    // size swept: the last point where shared is still cheaper starts the crossing.
    let last_shared = points.iter().rposition(|p| !cheaper(p));
    let work_hours = match last_shared {
        None => Some(0.0),
        Some(i) => match points.get(i..i + 2) {
            Some([p0, p1]) => {
                // Linear interpolation of the gap between the two points.
                let gap = |p: &Point| f64::try_from(p.b.amount - p.a.amount).unwrap_or(0.0);
                let (g0, g1) = (gap(p0), gap(p1));
                let t = if (g0 - g1).abs() > 0.0 {
                    g0 / (g0 - g1)
                } else {
                    0.0
                };
                Some(crate::plan::context::round4(p0.x + t * (p1.x - p0.x)))
            }
            // Shared is still cheaper at the last point: no crossing within the sweep.
            _ => None,
        },
    };
    Some(RunLengthBreakEven { work_hours, points })
}
