//! Pricing one offer for one task, in three named steps:
//!
//! 1. **feasibility** — [`feasibility::check`]: can the task run here at all (VRAM, GPUs, slices,
//!    sensitivity, interruptions, queue);
//! 2. **time** — [`work_on`] and [`time_on`]: the work on this offer's GPUs (speed, slices, GPUs
//!    used, measured IO), then the time model (slowdown, interruptions, queue) in expectation and
//!    as a distribution, and the vetoes that depend on time (never finishing, a hard deadline, a
//!    latency target);
//! 3. **money** — [`money_on`]: rent, storage, egress, the value of the time spent and the
//!    deadline risk, as an expectation and at the P90 trial.
//!
//! [`evaluate`] runs the three and assembles the [`OptionResult`].

use std::sync::Arc;

use rust_decimal::Decimal;

use crate::numbers::money::Money;

use crate::hardware::gpu::find_gpu;
use crate::numbers::money::dec;
use crate::offers::billing::HOURS_PER_MONTH;
use crate::offers::offer::Offer;
use crate::offers::rent::{OfferRent, rent_in_offer_currency, term_hours, term_price};
use crate::offers::tenancy::{LATENCY_REFERENCE_SHARE, NeighbourLoad, Slowdown, SlowdownSource};
use crate::plan::context::{Context, round4};
use crate::plan::feasibility::{self, Needs, fmt1};
use crate::plan::job::Rule;
use crate::plan::option::{Costs, OptionResult, PriceFacts};
use crate::plan::performance::{MULTI_GPU_EFFICIENCY, card_share, speed_ratio};
use crate::plan::reach;
use crate::plan::reason::{Reason, RuleId};
use crate::plan::scaling::{Communication, communication};
use crate::plan::time::{
    Draws, Expectation, Simulation, TimeInputs, Walked, expect, notice_saves, simulate_shared,
};
use crate::task::document::{self, LatencyTarget, TaskKind};

/// Prices `offer` for the context's task. With `draws`, the P50/P90 and deadline figures come
/// from the Monte Carlo; without, they equal the expectation (used for break-even sweeps).
pub fn evaluate(ctx: &Context<'_>, offer: &Offer, draws: Option<&Draws>) -> OptionResult {
    evaluate_parts(ctx, offer, draws).0
}

/// [`evaluate`], also returning the work and the time it found (what a policy needs to price
/// the same offer differently).
pub fn evaluate_parts(
    ctx: &Context<'_>,
    offer: &Offer,
    draws: Option<&Draws>,
) -> (OptionResult, Work, Time) {
    let fit = feasibility::check(&Needs::of(ctx.task), offer);
    let mut reasons = fit.vetoes;
    let mut flags = fit.flags;
    let (reach_vetoes, reach_flags) = reach::check(ctx.task, offer);
    reasons.extend(reach_vetoes);
    flags.extend(reach_flags);
    let work = work_on(ctx, offer, &mut flags);
    let time = time_on(ctx, offer, &work, draws, &mut reasons, &mut flags);
    let money = money_on(ctx, offer, &time);

    if let Some(budget) = ctx.task.budget {
        let budget = ctx.money(ctx.task_money(budget));
        if money.total_expected.amount > budget.amount {
            flags.push(
                Reason::new(RuleId::OverBudget)
                    .with("total", money.total_expected.display())
                    .with("budget", budget.display()),
            );
        }
    }
    if offer.estimate {
        flags.push(
            Reason::new(RuleId::PriceIsEstimate)
                .with("note", offer.estimate_note.clone().unwrap_or_default()),
        );
    }

    let expected = &time.expected;
    let option = OptionResult {
        offer_id: offer.id.clone(),
        provider: offer.provider.clone(),
        gpu: offer.gpu.clone(),
        gpu_count: offer.gpu_count,
        tenancy: offer.tenancy,
        shared: offer.tenancy.is_shared(),
        billing_mode: offer.billing_mode,
        region_class: offer.region.class,
        feasible: reasons.is_empty(),
        reasons,
        flags,
        vram_fit: fit.vram_fit,
        slowdown: work.slowdown,
        hours_expected: round4(expected.wall_hours()),
        hours_p50: round4(time.p50),
        hours_p90: round4(time.p90),
        running_hours_expected: round4(expected.running_hours),
        queue_hours_expected: round4(expected.queue_hours),
        queue_hours: time.inputs.queue.summary(),
        neighbour_load: work.neighbour_load,
        communication: work.communication,
        rework_hours_expected: round4(expected.rework_hours),
        interruptions_expected: round4(expected.interruptions),
        deadline_miss_probability: time.miss.map(round4),
        latency_p99_ms: time.latency_p99_ms.map(round4),
        latency_p99_factor: offer.tenancy.latency_factor_with(&work.slowdown),
        round_trip: (ctx.task.reach.location.is_some() || !ctx.task.reach.measured_rtt.is_empty())
            .then(|| reach::round_trip_to(ctx.task, offer)),
        io_hours_per_run: work
            .io_hours
            .filter(|_| ctx.task.service.is_none())
            .map(round4),
        costs: money,
        price: PriceFacts::of(offer, ctx.settings.today_date()),
        policy: None,
        risk: None,
    };
    (option, work, time)
}

/// The task's work on one offer, before neighbours and interruptions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    /// Speed of the offer's GPU relative to the reference GPU for this kind of work.
    pub speed: f64,
    /// Hours of GPU work per run on this offer (speed, slice fraction, GPUs used).
    pub compute_hours: f64,
    /// Hours each run spends on measured IO beyond the GPU work, when a measured rate applies.
    pub io_hours: Option<f64>,
    /// The run-time multiplier of the offer's tenancy, or its measured or given override.
    pub slowdown: Slowdown,
    /// The neighbours' load behind the multiplier, for a work-conserving tenancy.
    pub neighbour_load: Option<NeighbourLoad>,
    /// What the GPUs exchange over the offer's links, for a data-parallel task on several GPUs.
    pub communication: Option<Communication>,
}

/// Step 2a: the work per run on `offer`. Measured IO: reads overlap the GPU work (a run lasts as
/// long as the slower of the two), downloads come before it; without measured rates IO is
/// assumed never to hold a run back. Flags a run the disk bounds.
pub fn work_on(ctx: &Context<'_>, offer: &Offer, flags: &mut Vec<Reason>) -> Work {
    work_at_speed(ctx, offer, speed_on(ctx, offer), flags)
}

/// The speed of `offer`'s GPU relative to the reference GPU for the task's kind of work (1 when
/// either is unknown); it does not depend on the amount of work.
fn speed_on(ctx: &Context<'_>, offer: &Offer) -> f64 {
    match (ctx.reference, find_gpu(&offer.gpu)) {
        (Some(r), Some(g)) => speed_ratio(r, g, ctx.task.bound),
        _ => 1.0,
    }
}

/// [`work_on`] with the speed already known.
fn work_at_speed(ctx: &Context<'_>, offer: &Offer, speed: f64, flags: &mut Vec<Reason>) -> Work {
    let task = ctx.task;
    let used = if task.scales_across_gpus {
        offer.gpu_count
    } else {
        task.gpus.min(offer.gpu_count)
    }
    .max(1);
    let share = card_share(offer, task.bound);
    // With the task's data exchange, the offer's links set the scaling; else a fixed efficiency.
    let communication = task
        .data_parallel
        .as_ref()
        .filter(|_| used > 1)
        .and_then(|dp| communication(dp, offer, used, task.work_hours / (speed * share)));
    let efficiency = match &communication {
        Some(c) => c.efficiency,
        None if used > 1 => MULTI_GPU_EFFICIENCY,
        None => 1.0,
    };
    let throughput = speed * share * f64::from(used) * efficiency;
    let compute_hours = task.work_hours / throughput;

    let io = offer.io.unwrap_or_default();
    let read = task.data_read_gb.and_then(|gb| io.read_hours(gb));
    let download = task.data_download_gb.and_then(|gb| io.download_hours(gb));
    let io_hours = (read.is_some() || download.is_some())
        .then(|| (read.unwrap_or(0.0) - compute_hours).max(0.0) + download.unwrap_or(0.0));
    if let Some(read) = read
        && read > compute_hours
        && task.service.is_none()
    {
        flags.push(
            Reason::new(RuleId::DiskBound)
                .with("read_hours", fmt1(read))
                .with("compute_hours", fmt1(compute_hours))
                .with(
                    "mb_per_s",
                    format!("{:.0}", io.disk_read_mb_s.unwrap_or(0.0)),
                ),
        );
    }
    let (slowdown, neighbour_load) = offer.slowdown_with(task.neighbour_load);
    Work {
        speed,
        compute_hours,
        io_hours,
        slowdown,
        neighbour_load,
        communication,
    }
}

/// How long the task takes on one offer.
#[derive(Debug, Clone, PartialEq)]
pub struct Time {
    /// What the time model was given.
    pub inputs: TimeInputs,
    /// The closed-form expectation.
    pub expected: Expectation,
    /// Median wall-clock hours (the expectation without a Monte Carlo).
    pub p50: f64,
    /// 90th-percentile wall-clock hours.
    pub p90: f64,
    /// Running hours of the P90 trial (what metered billing charges in it).
    pub running_p90: f64,
    /// Probability of missing the deadline, when there is one.
    pub miss: Option<f64>,
    /// P99 latency including the round trip, for inference with a target.
    pub latency_p99_ms: Option<f64>,
    /// The Monte Carlo's trials, when it ran.
    pub sim: Option<Arc<Simulation>>,
    /// The policies walked with staying, when the context prepared them.
    pub walked: Option<Walked>,
}

/// Step 2b: the time model on `offer` — expectation, distribution (with `draws`), and the vetoes
/// and flags that depend on time: never finishing, a hard deadline at P90, a latency target.
pub fn time_on(
    ctx: &Context<'_>,
    offer: &Offer,
    work: &Work,
    draws: Option<&Draws>,
    reasons: &mut Vec<Reason>,
    flags: &mut Vec<Reason>,
) -> Time {
    let task = ctx.task;
    let inputs = match task.service {
        // A service occupies calendar time; neighbours show up in its latency, not its hours.
        Some(s) => TimeInputs::plain(
            s.hours_per_month * s.months,
            1,
            Slowdown {
                median: 1.0,
                p99: 1.0,
                source: SlowdownSource::Assumed,
            },
        ),
        None => time_inputs(ctx, offer, work),
    };
    let expected = expect(&inputs);
    if expected.never_finishes {
        reasons.push(Reason::new(RuleId::NeverFinishes));
    }
    // The distribution is only needed where the offer is still in the running.
    let (p50, p90, running_p90, miss, sim, walked) = match draws {
        Some(d) if reasons.is_empty() => {
            let (sim, walked) = simulate_with_policies(ctx, offer, &inputs, &expected, d);
            let (p50, (p90, running_p90)) = sim.p50_p90();
            let miss = task.deadline_hours.map(|h| sim.share_over(h));
            (p50, p90, running_p90, miss, Some(sim), walked)
        }
        _ => {
            let wall = expected.wall_hours();
            (
                wall,
                wall,
                expected.running_hours,
                task.deadline_hours
                    .map(|h| if wall > h { 1.0 } else { 0.0 }),
                None,
                None,
            )
        }
    };
    if let Some(deadline) = task.deadline_hours
        && misses_hard_deadline(ctx, p90)
    {
        reasons.push(
            Reason::new(RuleId::DeadlineP90Missed)
                .with("p90_hours", fmt1(p90))
                .with("deadline_hours", fmt1(deadline)),
        );
    }

    let latency_p99_ms = match latency_target(ctx) {
        Some(l) => {
            let rt = reach::round_trip_to(ctx.task, offer);
            let p99 = latency_p99(offer, work, &l, rt.ms, ctx.task.bound);
            if p99 > l.p99_ms {
                reasons.push(
                    Reason::new(RuleId::LatencySloMissed)
                        .with("p99_ms", fmt1(p99))
                        .with("rtt_ms", fmt1(rt.ms))
                        .with("target_ms", fmt1(l.p99_ms)),
                );
            }
            flags.extend(reach::far_flag(ctx.task, offer, &rt));
            Some(p99)
        }
        _ => None,
    };
    Time {
        inputs,
        expected,
        p50,
        p90,
        running_p90,
        miss,
        latency_p99_ms,
        sim,
        walked,
    }
}

/// Whether a P90 of `p90` hours misses the task's hard deadline (a veto).
fn misses_hard_deadline(ctx: &Context<'_>, p90: f64) -> bool {
    let task = ctx.task;
    task.deadline_hours
        .is_some_and(|d| task.deadline_hard && p90 > d)
}

/// The latency target an inference task must meet, if any.
fn latency_target(ctx: &Context<'_>) -> Option<LatencyTarget> {
    match (ctx.task.kind, ctx.task.latency) {
        (TaskKind::Inference, Some(l)) => Some(l),
        _ => None,
    }
}

/// P99 latency on `offer`, a round trip of `rtt_ms` included, ms: the solo latency on the offer's
/// GPU times the tenancy's request-level P99 factor (`Tenancy::latency_p99_factor`, not the
/// run-level slowdown). A partitioned or whole card serves a request at its share of the card; a
/// time-shared tenant gets the whole card between the neighbours' kernels, so its factor (measured
/// next to one neighbour holding about half) is scaled up by the half over a smaller share.
fn latency_p99(
    offer: &Offer,
    work: &Work,
    l: &LatencyTarget,
    rtt_ms: f64,
    bound: document::Bound,
) -> f64 {
    let factor = offer.tenancy.latency_factor_with(&work.slowdown).p99;
    let share = card_share(offer, bound).clamp(1e-6, 1.0);
    let solo = if offer.tenancy.time_shares_compute() {
        l.base_ms / work.speed * (LATENCY_REFERENCE_SHARE / share).max(1.0)
    } else {
        l.base_ms / (work.speed * share)
    };
    solo * factor + rtt_ms
}

/// Staying on `offer`, simulated; with the policies the context prepared for it walked in the
/// same pass (they meet the same preemptions until they move).
fn simulate_with_policies(
    ctx: &Context<'_>,
    offer: &Offer,
    inputs: &TimeInputs,
    expected: &Expectation,
    draws: &Draws,
) -> (Arc<Simulation>, Option<Walked>) {
    let seed = ctx.settings.seed;
    let walk = ctx.walk_for(offer);
    let mut rules = vec![Rule::Stay];
    if let Some(walk) = walk {
        rules.extend(walk.rules.iter().copied());
    }
    let fallback = walk.map(|w| &w.fallback);
    let mut sims =
        simulate_shared(inputs, Some(expected), draws, seed, &rules, fallback).into_iter();
    let staying = sims.next().unwrap_or_default();
    let walked = walk.map(|walk| Walked {
        fallback: walk.fallback,
        sims: walk.rules.iter().copied().zip(sims).collect(),
    });
    (staying, walked)
}

/// The time model's inputs for a batch task on `offer`: the offer's interruption figures, or
/// the parameters fitted to its trace when one is attached (evidence beats the assumption).
pub fn time_inputs(ctx: &Context<'_>, offer: &Offer, work: &Work) -> TimeInputs {
    let task = ctx.task;
    let i = &offer.interruptions;
    let inputs = TimeInputs {
        run_hours: work.compute_hours + work.io_hours.unwrap_or(0.0),
        runs: task.runs,
        slowdown: work.slowdown,
        interruptions_per_hour: i.rate_per_hour(),
        gap_mean_hours: i.gap_hours(),
        saves_on_notice: notice_saves(i.notice_hours(), task.checkpoint.as_ref()),
        checkpoint: task.checkpoint,
        queue: offer.queue(),
        queue_every_run: offer.billing_mode.is_metered(),
        protection_hours: i.protection(),
    };
    match ctx.trace_for(offer) {
        // A measured queue trace says more of the start waits than a preemption trace.
        Some(t) if offer.queue_trace.is_some() => TimeInputs {
            queue: inputs.queue,
            ..inputs.fitted_to(&t.trace.stats().fitted)
        },
        Some(t) => inputs.fitted_to(&t.trace.stats().fitted),
        None => inputs,
    }
}

/// Hours one way of running the task uses: billed on the offer, billed on a fallback offer, and
/// wall-clock.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    /// Hours billed on the offer (running, rework, restarts).
    pub running: f64,
    /// Wall-clock hours.
    pub wall: f64,
    /// Hours billed on the fallback offer.
    pub fallback: f64,
}

/// Step 3: the money. Rent by billing mode over the hours the machine is held, storage for at
/// least as long as the task runs, egress, the value of the wall-clock time, and the deadline
/// penalty times its probability; the P90 total prices the P90 trial the same way.
pub fn money_on(ctx: &Context<'_>, offer: &Offer, time: &Time) -> Costs {
    let expected = &time.expected;
    money_for(
        ctx,
        offer,
        &time.inputs,
        None,
        Usage {
            running: expected.running_hours,
            wall: expected.wall_hours(),
            fallback: 0.0,
        },
        Usage {
            running: time.running_p90,
            wall: time.p90,
            fallback: 0.0,
        },
        time.miss,
    )
}

/// The money of a way of running the task described by its expected and P90 usage, with the
/// probability of missing the deadline; `fallback` is the offer a policy moved hours to.
pub fn money_for(
    ctx: &Context<'_>,
    offer: &Offer,
    inputs: &TimeInputs,
    fallback: Option<&Offer>,
    expected: Usage,
    at_p90: Usage,
    miss: Option<f64>,
) -> Costs {
    let pricer = Pricer::new(ctx, offer);
    let e = pricer.expected(inputs, fallback, expected, miss);
    let total_p90 = pricer.total_p90(inputs, fallback, at_p90);
    Costs {
        rent: e.rent,
        storage: e.storage,
        egress: e.egress,
        time_cost: e.time_cost,
        risk_cost: e.risk_cost,
        total_expected: e.total_expected,
        total_p90,
    }
}

/// The expected side of [`Costs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ExpectedCosts {
    pub rent: Money,
    pub storage: Money,
    pub egress: Money,
    pub time_cost: Money,
    pub risk_cost: Money,
    pub total_expected: Money,
}

/// The money of one offer for the context's task, with what does not depend on the hours worked
/// out once: the provider discount, the storage rate for the task's data, the egress, and the
/// task's value of time and deadline penalty in the output currency. Every figure comes from the
/// same operations on the same values as when each was worked out where it is used.
pub(crate) struct Pricer<'c, 'a> {
    ctx: &'c Context<'a>,
    offer: &'c Offer,
    rent: OfferRent,
    discount: Decimal,
    /// Storage price per month for the task's data: price per GB-month x GB.
    storage_rate: Decimal,
    egress: Money,
    /// The value of an hour in the output currency (none for a service, whose time costs nothing).
    value_of_time: Option<Decimal>,
    penalty: Decimal,
}

impl<'c, 'a> Pricer<'c, 'a> {
    /// Prepares the money of `offer`.
    pub(crate) fn new(ctx: &'c Context<'a>, offer: &'c Offer) -> Pricer<'c, 'a> {
        let task = ctx.task;
        let mut pricer = Pricer {
            ctx,
            offer,
            rent: OfferRent::of(offer),
            discount: ctx.discount(&offer.provider),
            storage_rate: offer.storage_per_gb_month * dec(task.storage_gb),
            egress: Money::zero(ctx.settings.currency),
            value_of_time: task
                .service
                .is_none()
                .then(|| ctx.task_money(task.value_of_time_per_hour)),
            penalty: task
                .deadline_penalty
                .map(|p| ctx.task_money(p))
                .unwrap_or_default(),
        };
        pricer.egress = ctx.money(pricer.price(offer.egress_per_gb * dec(task.egress_gb)));
        pricer
    }

    /// An amount of the offer's own money in the output currency, with the provider discount.
    fn price(&self, amount: Decimal) -> Decimal {
        self.ctx
            .convert(amount * self.discount, self.offer.currency)
    }

    /// Hours the machine is held: a service's months, the running hours on a metered offer,
    /// else the wall-clock hours after a queue wait taken once.
    fn held(&self, inputs: &TimeInputs, running: f64, wall: f64) -> f64 {
        match self.ctx.task.service {
            Some(s) => s.months * HOURS_PER_MONTH,
            None if self.offer.billing_mode.is_metered() => running,
            None => {
                wall - if inputs.queue_every_run {
                    0.0
                } else {
                    inputs.queue_mean_hours().min(wall)
                }
            }
        }
    }

    fn rent_at(&self, inputs: &TimeInputs, fallback: Option<&Offer>, u: Usage) -> Decimal {
        let own = self.price(self.rent.rent(
            u.running,
            self.held(inputs, u.running, u.wall),
            inputs.runs,
        ));
        let moved = match fallback {
            Some(f) if u.fallback > 0.0 => self
                .ctx
                .offer_money(f, rent_in_offer_currency(f, u.fallback, u.fallback, 1)),
            _ => Decimal::ZERO,
        };
        own + moved
    }

    fn storage_at(&self, wall: f64) -> Decimal {
        let task = self.ctx.task;
        let service = task.service;
        let months = match service {
            Some(s) => s.months.max(task.storage_months),
            None => (wall / HOURS_PER_MONTH).max(task.storage_months),
        };
        let disk_months = match service {
            Some(s) => s.months,
            None if self.offer.billing_mode.is_metered() => wall / HOURS_PER_MONTH,
            None => 0.0,
        };
        self.price(
            self.storage_rate * dec(months) + self.offer.system_disk_per_month * dec(disk_months),
        )
    }

    fn time_at(&self, wall: f64) -> Decimal {
        match self.value_of_time {
            Some(v) => v * dec(wall),
            None => Decimal::ZERO,
        }
    }

    /// The expected money: rent, storage, egress, time and risk, each rounded, and their total.
    pub(crate) fn expected(
        &self,
        inputs: &TimeInputs,
        fallback: Option<&Offer>,
        expected: Usage,
        miss: Option<f64>,
    ) -> ExpectedCosts {
        let ctx = self.ctx;
        let wall_expected = expected.wall;
        let rent = ctx.money(self.rent_at(inputs, fallback, expected));
        let storage = ctx.money(self.storage_at(wall_expected));
        let egress = self.egress;
        let time_cost = ctx.money(self.time_at(wall_expected));
        let risk_cost = ctx.money(self.penalty * dec(miss.unwrap_or(0.0)));
        let total_expected = ctx.money(
            rent.amount + storage.amount + egress.amount + time_cost.amount + risk_cost.amount,
        );
        ExpectedCosts {
            rent,
            storage,
            egress,
            time_cost,
            risk_cost,
            total_expected,
        }
    }

    /// The total of the P90 trial: its rent, storage and time, the egress, and the penalty when
    /// it misses the deadline.
    pub(crate) fn total_p90(
        &self,
        inputs: &TimeInputs,
        fallback: Option<&Offer>,
        at_p90: Usage,
    ) -> Money {
        let ctx = self.ctx;
        let missed_at_p90 = ctx.task.deadline_hours.is_some_and(|d| at_p90.wall > d);
        ctx.money(
            ctx.money(self.rent_at(inputs, fallback, at_p90)).amount
                + ctx.money(self.storage_at(at_p90.wall)).amount
                + self.egress.amount
                + ctx.money(self.time_at(at_p90.wall)).amount
                + if missed_at_p90 {
                    ctx.money(self.penalty).amount
                } else {
                    Decimal::ZERO
                },
        )
    }
}

/// One offer prepared for the break-even sweep, which prices it for the same task at many work
/// sizes: the feasibility check (it does not read the work), the GPU's speed and the money's
/// fixed parts are found once. [`SweepOffer::expected_total`] is what [`evaluate`] without draws
/// finds for the total and the verdict, reached by the same operations on the same values.
pub(crate) struct SweepOffer<'c, 'a> {
    /// The offer.
    pub offer: &'c Offer,
    speed: f64,
    pricer: Pricer<'c, 'a>,
    /// The rates of the lower bound, when every amount a total adds grows with the hours
    /// (prices, rates, discounts, the value of time and the penalty are not negative).
    bound: Option<Bound>,
}

/// The rates of [`SweepOffer::total_at_least`], in the output currency, as floats.
struct Bound {
    /// Price per hour (metered) or per term.
    rent_rate: f64,
    /// The term of a subscription, hours.
    term_hours: Option<f64>,
    /// Storage of the task's data per month.
    storage_rate: f64,
    value_of_time: f64,
    egress: f64,
}

/// Hours below which a lower bound is used: far below the decimal sentinel of non-finite hours.
const BOUNDED_HOURS: f64 = 1e8;

impl<'c, 'a> SweepOffer<'c, 'a> {
    /// Prepares `offer` for the context's task, or `None` when feasibility vetoes it (at every
    /// work size).
    pub(crate) fn new(ctx: &'c Context<'a>, offer: &'c Offer) -> Option<SweepOffer<'c, 'a>> {
        if !feasibility::check(&Needs::of(ctx.task), offer).is_feasible() {
            return None;
        }
        let task = ctx.task;
        let not_negative = |d: Decimal| !d.is_sign_negative() || d.is_zero();
        let monotone = not_negative(offer.price)
            && offer.upfront.is_none_or(not_negative)
            && not_negative(offer.storage_per_gb_month)
            && not_negative(offer.system_disk_per_month)
            && task.storage_gb >= 0.0
            && not_negative(ctx.settings.cny_per_usd)
            && !ctx.settings.cny_per_usd.is_zero()
            && not_negative(task.value_of_time_per_hour)
            && task.deadline_penalty.is_none_or(not_negative);
        let pricer = Pricer::new(ctx, offer);
        let monotone = monotone && not_negative(pricer.discount) && !pricer.discount.is_zero();
        let float = |d: Decimal| f64::try_from(d).ok().filter(|x| x.is_finite() && *x >= 0.0);
        let bound = (monotone && task.service.is_none())
            .then(|| {
                let term = term_hours(offer);
                let rent = if term.is_some() {
                    term_price(offer)
                } else {
                    offer.price
                };
                Some(Bound {
                    rent_rate: float(pricer.price(rent))?,
                    term_hours: term,
                    storage_rate: float(pricer.price(pricer.storage_rate))?,
                    value_of_time: float(pricer.value_of_time.unwrap_or_default())?,
                    egress: float(pricer.egress.amount)?,
                })
            })
            .flatten();
        Some(SweepOffer {
            offer,
            speed: speed_on(ctx, offer),
            pricer,
            bound,
        })
    }

    /// The work and the time model's inputs at the task of `ctx` (the sweep's task at one size:
    /// no traces, no service).
    pub(crate) fn inputs(&self, ctx: &Context<'_>) -> (Work, TimeInputs) {
        let work = work_at_speed(ctx, self.offer, self.speed, &mut Vec::new());
        let inputs = time_inputs(ctx, self.offer, &work);
        (work, inputs)
    }

    /// The expected total at the task of `ctx`, `None` when a veto that depends on time applies
    /// (never finishing, a hard deadline, a latency target): as [`evaluate`] without draws.
    pub(crate) fn expected_total(
        &self,
        ctx: &Context<'_>,
        work: &Work,
        inputs: &TimeInputs,
    ) -> Option<Decimal> {
        let expected = expect(inputs);
        if expected.never_finishes {
            return None;
        }
        let wall = expected.wall_hours();
        if misses_hard_deadline(ctx, wall) {
            return None;
        }
        if let Some(l) = latency_target(ctx)
            && latency_p99(
                self.offer,
                work,
                &l,
                reach::round_trip_to(ctx.task, self.offer).ms,
                ctx.task.bound,
            ) > l.p99_ms
        {
            return None;
        }
        let miss = ctx
            .task
            .deadline_hours
            .map(|h| if wall > h { 1.0 } else { 0.0 });
        let usage = Usage {
            running: expected.running_hours,
            wall,
            fallback: 0.0,
        };
        let costs = self.pricer.expected(inputs, None, usage, miss);
        Some(costs.total_expected.amount)
    }

    /// A number that [`SweepOffer::expected_total`] never goes below, found in floats without
    /// the time model: the money of the runs without any interruption or penalty. Running hours
    /// are at least the work times the mean slowdown (less a margin far beyond the slowdown
    /// integration's error), wall-clock hours at least those plus the queue; rent is at least
    /// the hourly price times the hours (metered) or one term per started term (subscriptions),
    /// storage at least its months, time at least its hours, each less what decimal rounding
    /// can take off, and the float arithmetic has a margin of its own. `None` when no bound is
    /// known.
    pub(crate) fn total_at_least(&self, inputs: &TimeInputs) -> Option<f64> {
        let b = self.bound.as_ref()?;
        let runs = f64::from(inputs.runs);
        let running = runs * inputs.run_hours * inputs.slowdown.mean() * 0.999;
        let queue = inputs.queue_mean_hours() * if inputs.queue_every_run { runs } else { 1.0 };
        let wall = queue + running;
        let usable = |h: f64| h.is_finite() && (0.0..BOUNDED_HOURS).contains(&h);
        if !(usable(running) && usable(queue) && usable(wall)) {
            return None;
        }
        // Hours lost to rounding to 6 decimals, at most.
        let slack = 1e-6;
        let rent = match b.term_hours {
            None => b.rent_rate * (running / runs.max(1.0) - slack).max(0.0) * runs.max(1.0),
            Some(term) => {
                let held = (wall - queue - slack).max(0.0);
                b.rent_rate * (held / term).max(1.0)
            }
        };
        let months = (wall / HOURS_PER_MONTH).max(self.pricer.ctx.task.storage_months);
        let storage = b.storage_rate * (months - slack).max(0.0);
        let time = b.value_of_time * (wall - slack).max(0.0);
        // Five amounts and the total rounded to cents, each by at most half a cent.
        Some((b.egress + rent + storage + time) * (1.0 - 1e-9) - 0.03)
    }

    /// Whether the offer is shared.
    pub(crate) fn shared(&self) -> bool {
        self.offer.tenancy.is_shared()
    }
}
