//! Policies for interruptible capacity, priced: staying on the offer, falling back to an
//! uninterruptible offer after N preemptions, moving when the deadline's slack runs out, or
//! running on the uninterruptible offer from the start. Each is priced by the model's Monte Carlo
//! and, where a trace is attached to the offer, by replaying the trace from every tick; the
//! replay's figures count over the model's (evidence beats the assumption).
//!
//! The offer's figures in the ranking are those of the chosen policy: the task's own choice, or
//! else the usable policy (one that finishes, within a hard deadline at P90) with the lowest
//! expected total, the simpler one on a tie.

use std::sync::Arc;

use crate::numbers::money::Money;
use crate::numbers::stats::OrderStats;
use crate::offers::offer::Offer;
use crate::offers::trace::AttachedTrace;
use crate::plan::context::{Context, round4};
use crate::plan::cost::{Time, Usage, evaluate_parts, money_for, time_inputs, work_on};
use crate::plan::feasibility::fmt1;
use crate::plan::job::Rule;
use crate::plan::option::{Costs, OptionResult};
use crate::plan::reason::{Reason, RuleId};
use crate::plan::replay::replay;
use crate::plan::risk::{CDF_QUANTILES, Outcome, PolicyResult, Risk, RiskSource};
use crate::plan::time::{
    Draws, FallbackPlan, PolicyWalk, Simulation, TimeInputs, expect, simulate_shared,
};
use crate::task::document::TaskProfile;
use crate::task::policy::Policy;

/// An uninterruptible offer already priced: what a policy moves to.
pub type Priced<'a> = (&'a Offer, &'a OptionResult, &'a Time);

/// Prices `offer` like [`crate::plan::cost::evaluate`], and for an interruptible offer also
/// every policy, taking the chosen policy's figures.
pub fn evaluate_with_risk(ctx: &Context<'_>, offer: &Offer, draws: &Draws) -> OptionResult {
    let (mut option, _, time) = evaluate_parts(ctx, offer, Some(draws));
    let twin = fallback_for(ctx, offer).map(|f| {
        let (o, _, t) = evaluate_parts(ctx, f, Some(draws));
        (f, o, t)
    });
    add_risk(
        ctx,
        offer,
        &mut option,
        &time,
        draws,
        twin.as_ref().map(|(f, o, t)| (*f, o, t)),
    );
    option
}

/// For an interruptible offer already priced (`option`, `time`): prices every policy, with
/// `fallback` (the offer [`fallback_for`] names, already priced) to move to, and puts the chosen
/// policy's figures on the option. Leaves other offers as they are.
pub fn add_risk(
    ctx: &Context<'_>,
    offer: &Offer,
    option: &mut OptionResult,
    time: &Time,
    draws: &Draws,
    fallback: Option<Priced<'_>>,
) {
    let trace = ctx.trace_for(offer);
    let interruptible = time.inputs.interruptions_per_hour > 0.0 || trace.is_some();
    // Only the vetoes that depend on time can be lifted by a policy.
    let rescuable = option
        .reasons
        .iter()
        .all(|r| matches!(r.rule, RuleId::NeverFinishes | RuleId::DeadlineP90Missed));
    if ctx.task.service.is_some() || !interruptible || !rescuable {
        return;
    }
    let fallback = fallback.filter(|(_, o, t)| o.feasible && t.sim.is_some());
    let (risk, costs) = assess(ctx, offer, option, time, draws, trace, fallback);
    apply(ctx, option, time, risk, costs);
}

/// The uninterruptible offer a policy moves to: the offer's `fallback` when it names one, else
/// the cheapest pay-as-you-go offer of the same provider, GPU, GPU count and tenancy (same region
/// first) that is never interrupted.
pub fn fallback_for<'a>(ctx: &Context<'a>, offer: &Offer) -> Option<&'a Offer> {
    if let Some(id) = &offer.interruptions.fallback {
        let named = ctx.offer_named(id)?;
        let steady = named.id != offer.id
            && !named.interruptions.interrupts()
            && ctx.trace_for(named).is_none();
        return steady.then_some(named);
    }
    ctx.steady_twin(offer)
}

/// Summarises trials or starts and prices them on `offer` (with `fallback` for moved hours).
fn outcome(
    ctx: &Context<'_>,
    offer: &Offer,
    fallback: Option<&Offer>,
    inputs: &TimeInputs,
    sim: &Simulation,
) -> (Outcome, Costs) {
    let n = sim.wall_hours.len();
    let summary = sim.summary();
    let (wall, billed) = (&summary.wall, &summary.billed);
    let miss = ctx.task.deadline_hours.map(|d| sim.share_over(d));
    let expected = Usage {
        running: summary.running_mean,
        wall: summary.wall_mean,
        fallback: summary.fallback_mean,
    };
    let at_p90 = summary.p90_trial.and_then(|i| sim.trial(i)).map_or(
        expected,
        |(wall, running, fallback)| Usage {
            running,
            wall,
            fallback,
        },
    );
    let costs = money_for(ctx, offer, inputs, fallback, expected, at_p90, miss);
    let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    let q = |v: &OrderStats, p: f64| {
        if v.is_empty() {
            0.0
        } else {
            round4(v.percentile(p))
        }
    };
    let preemptions = summary.preemptions;
    (
        Outcome {
            samples: n as u32,
            hours_mean: round4(expected.wall),
            hours_p50: q(wall, 0.5),
            hours_p90: q(wall, 0.9),
            hours_p99: q(wall, 0.99),
            billed_hours_mean: round4(expected.running + expected.fallback),
            billed_hours_p50: q(billed, 0.5),
            billed_hours_p90: q(billed, 0.9),
            billed_hours_p99: q(billed, 0.99),
            fallback_hours_mean: round4(expected.fallback),
            switched_share: round4(share(sim.switched)),
            preemptions_mean: round4(if n == 0 { 0.0 } else { preemptions / n as f64 }),
            unfinished_share: round4(share(sim.unfinished)),
            deadline_miss_probability: miss.map(round4),
            total_expected: costs.total_expected.number(),
            total_p90: costs.total_p90.number(),
            cdf_hours: CDF_QUANTILES.iter().map(|&p| q(wall, p)).collect(),
        },
        costs,
    )
}

/// Puts an option's headline figures (closed-form expectation, Monte Carlo P50/P90) on an
/// outcome, so staying on the offer reads the same in the table and in the risk report.
fn with_headline(mut o: Outcome, option: &OptionResult) -> Outcome {
    o.hours_mean = option.hours_expected;
    o.hours_p50 = option.hours_p50;
    o.hours_p90 = option.hours_p90;
    o.billed_hours_mean = option.running_hours_expected;
    o.preemptions_mean = option.interruptions_expected;
    o.deadline_miss_probability = option.deadline_miss_probability;
    o.total_expected = option.costs.total_expected.number();
    o.total_p90 = option.costs.total_p90.number();
    o
}

fn usable(ctx: &Context<'_>, o: &Outcome) -> bool {
    let task = ctx.task;
    o.unfinished_share == 0.0
        && !(task.deadline_hard && task.deadline_hours.is_some_and(|d| o.hours_p90 > d))
}

/// Prices every policy for `offer` and picks one; also returns the chosen policy's costs.
fn assess(
    ctx: &Context<'_>,
    offer: &Offer,
    option: &OptionResult,
    time: &Time,
    draws: &Draws,
    trace: Option<&AttachedTrace>,
    fallback: Option<Priced<'_>>,
) -> (Risk, Costs) {
    let task = ctx.task;
    let inputs = &time.inputs;
    let plan = fallback.as_ref().map(|(_, _, t)| FallbackPlan {
        run_hours: t.inputs.run_hours * t.inputs.slowdown.mean(),
        queue: t.inputs.queue,
    });
    let candidates = candidates(task, fallback.is_some());
    let moving = moving_rules(task, &candidates);
    // The policies that move are simulated together, one walk through each trial; time_on
    // has usually walked them already, with staying (see [`policy_walks`]).
    let mut walks: Vec<(Policy, Arc<Simulation>)> = match (&time.walked, &plan) {
        (Some(w), Some(p))
            if w.fallback == *p
                && moving
                    .iter()
                    .all(|(_, rule)| w.sims.iter().any(|(r, _)| r == rule)) =>
        {
            moving
                .iter()
                .filter_map(|(policy, rule)| {
                    let (_, sim) = w.sims.iter().find(|(r, _)| r == rule)?;
                    Some((*policy, Arc::clone(sim)))
                })
                .collect()
        }
        _ => {
            let rules: Vec<Rule> = moving.iter().map(|(_, r)| *r).collect();
            moving
                .iter()
                .map(|(p, _)| *p)
                .zip(simulate_shared(
                    inputs,
                    Some(&time.expected),
                    draws,
                    ctx.settings.seed,
                    &rules,
                    plan.as_ref(),
                ))
                .collect()
        }
    };

    let mut results: Vec<(PolicyResult, Costs)> = Vec::new();
    for policy in candidates {
        let rule = rule_of(task, policy);
        let (model, replayed, costs) = match (policy, &fallback) {
            (Policy::OnDemandOnly, Some((f, f_option, f_time))) => {
                let Some(sim) = &f_time.sim else { continue };
                let (o, _) = outcome(ctx, f, None, &f_time.inputs, sim);
                (with_headline(o, f_option), None, f_option.costs)
            }
            _ => {
                let sim = match (policy, &time.sim) {
                    (Policy::SpotOnly, Some(sim)) => Arc::clone(sim),
                    // Staying never finishes (the closed form says so): no trial would end.
                    (Policy::SpotOnly, None) => Arc::new(Simulation::never()),
                    _ => walks
                        .iter()
                        .position(|(p, _)| *p == policy)
                        .map(|i| walks.swap_remove(i).1)
                        .unwrap_or_default(),
                };
                let moved_to = fallback.as_ref().map(|(f, _, _)| *f);
                let (mut model, mut costs) = outcome(ctx, offer, moved_to, inputs, &sim);
                if policy == Policy::SpotOnly {
                    model = with_headline(model, option);
                    costs = option.costs;
                }
                let replayed = trace.map(|t| {
                    let sim = replay(&t.trace, inputs, rule, plan.as_ref());
                    outcome(ctx, offer, moved_to, inputs, &sim)
                });
                match replayed {
                    Some((r, c)) => (model, Some(r), c),
                    None => (model, None, costs),
                }
            }
        };
        let ok = match (policy, &replayed) {
            // The closed form decides whether staying ever finishes, as it always has.
            (Policy::SpotOnly, None) => {
                !(time.expected.never_finishes
                    || task.deadline_hard && task.deadline_hours.is_some_and(|d| time.p90 > d))
            }
            (_, Some(r)) => usable(ctx, r),
            (_, None) => usable(ctx, &model),
        };
        results.push((
            PolicyResult {
                policy,
                id: policy.id(),
                model,
                replay: replayed,
                usable: ok,
            },
            costs,
        ));
    }

    let chosen = match task.spot_policy {
        Some(p) if results.iter().any(|(r, _)| r.policy == p) => p,
        Some(_) => Policy::SpotOnly,
        None => choose(results.iter().map(|(r, c)| (r, c))),
    };
    let costs = results
        .iter()
        .find(|(r, _)| r.policy == chosen)
        .map_or(option.costs, |(_, c)| *c);

    let i = &offer.interruptions;
    let range = if trace.is_none() { i.range() } else { None };
    let total_at = |rate: f64| -> f64 {
        let at = TimeInputs {
            interruptions_per_hour: rate,
            ..*inputs
        };
        let e = expect(&at);
        let usage = Usage {
            running: e.running_hours,
            wall: e.wall_hours(),
            fallback: 0.0,
        };
        let miss = task
            .deadline_hours
            .map(|d| if e.wall_hours() > d { 1.0 } else { 0.0 });
        money_for(ctx, offer, &at, None, usage, usage, miss)
            .total_expected
            .number()
    };
    let risk = Risk {
        rate_per_hour: round4_fine(inputs.interruptions_per_hour),
        rate_source: if trace.is_some() {
            RiskSource::Trace
        } else {
            RiskSource::Offer
        },
        rate_form: if trace.is_some() { None } else { i.form() },
        rate_low_per_hour: range.map(|r| round4_fine(r.0)),
        rate_high_per_hour: range.map(|r| round4_fine(r.1)),
        total_at_low: range.map(|r| total_at(r.0)),
        total_at_high: range.map(|r| total_at(r.1)),
        gap_hours: round4(inputs.gap_mean_hours),
        notice_seconds: i.notice_seconds.unwrap_or(0.0),
        saves_on_notice: inputs.saves_on_notice,
        protection_hours: inputs.protection(),
        source: if trace.is_some() {
            None
        } else {
            i.interruption_source.clone()
        },
        fallback_offer: fallback.as_ref().map(|(f, _, _)| f.id.clone()),
        trace: trace.map(|t| t.trace.stats()),
        policies: results.into_iter().map(|(r, _)| r).collect(),
        chosen,
    };
    (risk, costs)
}

/// The policies priced for `task`: its own choice next to staying, or every candidate; those
/// that move only with a fallback to move to, the deadline-aware one only with a deadline.
fn candidates(task: &TaskProfile, has_fallback: bool) -> Vec<Policy> {
    let mut candidates: Vec<Policy> = match task.spot_policy {
        Some(p) => vec![Policy::SpotOnly, p],
        None => Policy::CANDIDATES.to_vec(),
    };
    candidates.dedup();
    candidates.retain(|p| {
        (!p.needs_fallback() || has_fallback)
            && (*p != Policy::DeadlineAware || task.deadline_hours.is_some())
    });
    candidates
}

/// The simulation rule of a policy.
fn rule_of(task: &TaskProfile, policy: Policy) -> Rule {
    match policy {
        Policy::SpotOnly | Policy::OnDemandOnly => Rule::Stay,
        Policy::FallbackAfter { preemptions } => Rule::AfterPreemptions(preemptions),
        Policy::DeadlineAware => Rule::Deadline(task.deadline_hours.unwrap_or(f64::INFINITY)),
    }
}

/// The candidates that move the job to the fallback during a run, with their rules.
fn moving_rules(task: &TaskProfile, candidates: &[Policy]) -> Vec<(Policy, Rule)> {
    candidates
        .iter()
        .filter(|p| !matches!(p, Policy::SpotOnly | Policy::OnDemandOnly))
        .map(|&p| (p, rule_of(task, p)))
        .collect()
}

/// For every interruptible offer with an offer to fall back to: the rules its policies will
/// simulate and the fallback they move to, so that pricing the offer walks each trial once for
/// staying and every policy together. Only a shortcut: [`add_risk`] walks the policies itself
/// when they are not there.
pub fn policy_walks(ctx: &Context<'_>) -> Vec<PolicyWalk> {
    if ctx.task.service.is_some() {
        return Vec::new();
    }
    ctx.offers
        .iter()
        .filter(|o| o.interruptions.interrupts() || ctx.trace_for(o).is_some())
        .filter_map(|offer| {
            let fallback = fallback_for(ctx, offer)?;
            let work = work_on(ctx, fallback, &mut Vec::new());
            let t = time_inputs(ctx, fallback, &work);
            let rules = moving_rules(ctx.task, &candidates(ctx.task, true))
                .into_iter()
                .map(|(_, r)| r)
                .collect();
            Some(PolicyWalk {
                offer_id: offer.id.clone(),
                rules,
                fallback: FallbackPlan {
                    run_hours: t.run_hours * t.slowdown.mean(),
                    queue: t.queue,
                },
            })
        })
        .collect()
}

/// A policy must save at least this share of the best simpler policy's expected total to be
/// preferred: smaller differences are within the Monte Carlo's sampling noise (about 0.5 % for
/// the mean of 2000 trials of a spread-out completion time).
pub const MIN_POLICY_SAVING: f64 = 0.01;

/// The usable policy with the lowest expected total, in the order given (simpler first); a later
/// one replaces an earlier only by saving at least [`MIN_POLICY_SAVING`]. Staying on the offer
/// when none is usable.
fn choose<'a>(results: impl Iterator<Item = (&'a PolicyResult, &'a Costs)>) -> Policy {
    let mut best: Option<(&PolicyResult, &Costs)> = None;
    for (r, c) in results.filter(|(r, _)| r.usable) {
        let total = r.evidence().total_expected;
        match best {
            Some((b, _)) if total >= b.evidence().total_expected * (1.0 - MIN_POLICY_SAVING) => {}
            _ => best = Some((r, c)),
        }
    }
    best.map_or(Policy::SpotOnly, |(r, _)| r.policy)
}

/// Rates can be small (a monthly band is 0.0005 per hour): six significant digits.
fn round4_fine(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return if x.is_finite() { 0.0 } else { 10_000_000.0 };
    }
    let digits = 5 - libm::floor(libm::log10(x.abs())) as i32;
    let scale = libm::pow(10.0, f64::from(digits.max(0)));
    libm::round(x * scale) / scale
}

/// Puts the chosen policy's figures on the option, with the reasons that go with them.
fn apply(ctx: &Context<'_>, option: &mut OptionResult, time: &Time, risk: Risk, costs: Costs) {
    let task = ctx.task;
    let chosen = risk.chosen_result().cloned();
    let currency = option.costs.total_expected.currency;
    let spot_total = risk
        .spot_only()
        .map(|r| Money::from_number(r.evidence().total_expected, currency))
        .unwrap_or(option.costs.total_expected);
    if let Some(result) = &chosen
        && (result.policy != Policy::SpotOnly || result.replay.is_some())
    {
        let o = result.evidence();
        let clean = time.expected.running_hours - time.expected.rework_hours;
        option.hours_expected = o.hours_mean;
        option.hours_p50 = o.hours_p50;
        option.hours_p90 = o.hours_p90;
        option.running_hours_expected = o.billed_hours_mean;
        option.rework_hours_expected = round4((o.billed_hours_mean - clean).max(0.0));
        option.interruptions_expected = o.preemptions_mean;
        option.deadline_miss_probability = o.deadline_miss_probability;
        option.costs = costs;
        option
            .reasons
            .retain(|r| !matches!(r.rule, RuleId::NeverFinishes | RuleId::DeadlineP90Missed));
        if o.unfinished_share > 0.0 {
            option.reasons.push(Reason::new(RuleId::NeverFinishes));
        }
        if let Some(d) = task.deadline_hours
            && task.deadline_hard
            && o.hours_p90 > d
        {
            option.reasons.push(
                Reason::new(RuleId::DeadlineP90Missed)
                    .with("p90_hours", fmt1(o.hours_p90))
                    .with("deadline_hours", fmt1(d)),
            );
        }
        option.feasible = option.reasons.is_empty();
    }
    if let Some(stats) = &risk.trace {
        option.flags.push(
            Reason::new(RuleId::RiskFromTrace)
                .with("trace", stats.name.clone())
                .with("preemptions", stats.preemptions.to_string())
                .with("hours", fmt1(stats.hours))
                .with("per_running_hour", format!("{:.3}", stats.per_running_hour)),
        );
    }
    if let Some(result) = &chosen {
        let total = Money::from_number(result.evidence().total_expected, currency);
        let saving = Money {
            amount: spot_total.amount - total.amount,
            currency: total.currency,
        };
        option.flags.push(
            Reason::new(RuleId::SpotPolicy)
                .with("policy", result.id.clone())
                .with("fallback", risk.fallback_offer.clone().unwrap_or_default())
                .with("total", total.display())
                .with("spot_only_total", spot_total.display())
                .with("saving", saving.display()),
        );
    }
    option.policy = Some(risk.chosen);
    option.risk = Some(risk);
}
