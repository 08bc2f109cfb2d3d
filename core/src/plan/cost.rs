//! Pricing one offer for one task: feasibility, time, rent, storage, egress, time and risk cost.

use rust_decimal::Decimal;

use crate::hardware::gpu::find_gpu;
use crate::numbers::money::dec;
use crate::offers::billing::{BillingMode, HOURS_PER_MONTH};
use crate::offers::offer::{Offer, RegionClass};
use crate::offers::rent::rent_in_offer_currency;
use crate::offers::tenancy::{Slowdown, SlowdownSource, Tenancy};
use crate::plan::context::{Context, fmt1, round4};
use crate::plan::feasibility::{VRAM_TIGHT_SHARE, VramFit};
use crate::plan::option::OptionResult;
use crate::plan::performance::{MULTI_GPU_EFFICIENCY, speed_ratio};
use crate::plan::reason::{Reason, RuleId};
use crate::plan::security::required_controls;
use crate::plan::time::{Draws, TimeInputs, expect, hourly_rate, simulate};
use crate::task::document::{Sensitivity, TaskKind};

/// Prices `offer` for the context's task. With `draws`, the P50/P90 and deadline figures come
/// from the Monte Carlo; without, they equal the expectation (used for break-even sweeps).
pub fn evaluate(ctx: &Context<'_>, offer: &Offer, draws: Option<&Draws>) -> OptionResult {
    let task = ctx.task;
    let mut reasons = Vec::new();
    let mut flags = Vec::new();
    let gpu = find_gpu(&offer.gpu);
    if gpu.is_none() {
        reasons.push(Reason::new(RuleId::UnknownGpu).with("gpu", &offer.gpu));
    }

    // VRAM.
    let vram_fit = if task.vram_gib > offer.vram_gib {
        reasons.push(vram_reason(RuleId::VramOom, task.vram_gib, offer.vram_gib));
        VramFit::Oom
    } else if task.vram_gib > VRAM_TIGHT_SHARE * offer.vram_gib {
        flags.push(vram_reason(
            RuleId::VramTight,
            task.vram_gib,
            offer.vram_gib,
        ));
        VramFit::Tight
    } else {
        VramFit::Fits
    };
    if !offer.tenancy.isolates_memory() {
        flags.push(Reason::new(RuleId::OomRiskNoIsolation));
    }

    // GPU count and slices.
    if task.gpus > offer.gpu_count {
        reasons.push(
            Reason::new(RuleId::TooFewGpus)
                .with("need", task.gpus)
                .with("have", offer.gpu_count),
        );
    }
    if task.gpus > 1 && offer.tenancy.is_slice() {
        reasons.push(Reason::new(RuleId::SlicesCannotCombine));
    }

    // Sensitivity.
    match task.sensitivity {
        Sensitivity::InHouse if offer.tenancy.is_shared() => {
            reasons.push(Reason::new(RuleId::SensitivityRequiresDedicated));
        }
        Sensitivity::Confidential
            if matches!(
                offer.tenancy,
                Tenancy::TimeSliced | Tenancy::MarketplaceHost
            ) =>
        {
            reasons.push(
                Reason::new(RuleId::SensitivityExcludesTenancy).with("tenancy", offer.tenancy.id()),
            );
        }
        _ => {}
    }
    let missing: Vec<&str> = required_controls(task.sensitivity)
        .iter()
        .filter(|c| !offer.security.contains(c))
        .map(|c| c.id())
        .collect();
    if !missing.is_empty() {
        flags
            .push(Reason::new(RuleId::MissingSecurityControls).with("missing", missing.join(", ")));
    }

    // Interruptions and queue.
    if offer.billing_mode == BillingMode::Spot && !task.interruptible {
        reasons.push(Reason::new(RuleId::InterruptionsNotTolerated));
    }
    let queue_mean = offer.queue_wait_hours.unwrap_or(0.0);
    if let Some(max) = task.max_queue_hours
        && queue_mean > max
    {
        reasons.push(
            Reason::new(RuleId::QueueTooLong)
                .with("queue_hours", fmt1(queue_mean))
                .with("max_hours", fmt1(max)),
        );
    }

    // Work on this offer.
    let speed = match (ctx.reference, gpu) {
        (Some(r), Some(g)) => speed_ratio(r, g, task.bound),
        _ => 1.0,
    };
    let used = if task.scales_across_gpus {
        offer.gpu_count
    } else {
        task.gpus.min(offer.gpu_count)
    }
    .max(1);
    let efficiency = if used > 1 { MULTI_GPU_EFFICIENCY } else { 1.0 };
    let throughput = speed * offer.gpu_fraction * f64::from(used) * efficiency;
    let slowdown = Slowdown::for_offer(offer.tenancy, offer.slowdown.as_ref());

    // Measured IO: reads overlap the GPU work (a run lasts as long as the slower of the two),
    // downloads come before it. Without measured rates IO is assumed never to hold a run back.
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

    let service = task.service;
    let inputs = match service {
        // A service occupies calendar time; neighbours show up in its latency, not its hours.
        Some(s) => TimeInputs {
            run_hours: s.hours_per_month * s.months,
            runs: 1,
            slowdown: Slowdown {
                median: 1.0,
                p99: 1.0,
                source: SlowdownSource::Assumed,
            },
            interruptions_per_hour: 0.0,
            checkpoint: None,
            queue_mean_hours: 0.0,
            queue_every_run: false,
        },
        None => TimeInputs {
            run_hours: compute_hours + io_hours.unwrap_or(0.0),
            runs: task.runs,
            slowdown,
            interruptions_per_hour: hourly_rate(offer.interruption_per_month.unwrap_or(0.0)),
            checkpoint: task.checkpoint,
            queue_mean_hours: queue_mean,
            queue_every_run: offer.billing_mode.is_metered(),
        },
    };
    let expected = expect(&inputs);
    if expected.never_finishes {
        reasons.push(Reason::new(RuleId::NeverFinishes));
    }
    // The distribution is only needed where the offer is still in the running.
    let (p50, p90, running_p90, miss) = match draws {
        Some(d) if reasons.is_empty() => {
            let sim = simulate(&inputs, d, ctx.settings.seed, &offer.id);
            let ((p50, _), (p90, running_p90)) = sim.p50_p90();
            (
                p50,
                p90,
                running_p90,
                task.deadline_hours.map(|h| sim.share_over(h)),
            )
        }
        _ => {
            let wall = expected.wall_hours();
            (
                wall,
                wall,
                expected.running_hours,
                task.deadline_hours
                    .map(|h| if wall > h { 1.0 } else { 0.0 }),
            )
        }
    };
    if let Some(deadline) = task.deadline_hours
        && task.deadline_hard
        && p90 > deadline
    {
        reasons.push(
            Reason::new(RuleId::DeadlineP90Missed)
                .with("p90_hours", fmt1(p90))
                .with("deadline_hours", fmt1(deadline)),
        );
    }

    // Latency for inference services.
    let latency_p99_ms = match (task.kind, task.latency) {
        (TaskKind::Inference, Some(l)) => {
            let p99 = l.base_ms / (speed * offer.gpu_fraction) * slowdown.p99 + offer.region.rtt_ms;
            if p99 > l.p99_ms {
                reasons.push(
                    Reason::new(RuleId::LatencySloMissed)
                        .with("p99_ms", fmt1(p99))
                        .with("rtt_ms", fmt1(offer.region.rtt_ms))
                        .with("target_ms", fmt1(l.p99_ms)),
                );
            }
            if offer.region.class != RegionClass::Tier1 {
                flags.push(
                    Reason::new(RuleId::RemoteRegionLatency)
                        .with("class", region_class_id(offer.region.class))
                        .with("rtt_ms", fmt1(offer.region.rtt_ms)),
                );
            }
            Some(p99)
        }
        _ => None,
    };

    // Money.
    let held = |running: f64, wall: f64| match service {
        Some(s) => s.months * HOURS_PER_MONTH,
        None if offer.billing_mode.is_metered() => running,
        None => {
            wall - if inputs.queue_every_run {
                0.0
            } else {
                inputs.queue_mean_hours.min(wall)
            }
        }
    };
    let runs = inputs.runs;
    let price = |amount: Decimal| ctx.offer_money(offer, amount);
    let rent_at = |running: f64, wall: f64| {
        price(rent_in_offer_currency(
            offer,
            running,
            held(running, wall),
            runs,
        ))
    };
    let storage_at = |wall: f64| {
        let months = match service {
            Some(s) => s.months.max(task.storage_months),
            None => (wall / HOURS_PER_MONTH).max(task.storage_months),
        };
        let disk_months = match service {
            Some(s) => s.months,
            None if offer.billing_mode.is_metered() => wall / HOURS_PER_MONTH,
            None => 0.0,
        };
        price(
            offer.storage_per_gb_month * dec(task.storage_gb) * dec(months)
                + offer.system_disk_per_month * dec(disk_months),
        )
    };
    let time_at = |wall: f64| {
        if service.is_some() {
            Decimal::ZERO
        } else {
            ctx.task_money(task.value_of_time_per_hour) * dec(wall)
        }
    };
    let penalty = task
        .deadline_penalty
        .map(|p| ctx.task_money(p))
        .unwrap_or_default();

    let wall_expected = expected.wall_hours();
    let rent = ctx.money(rent_at(expected.running_hours, wall_expected));
    let storage = ctx.money(storage_at(wall_expected));
    let egress = ctx.money(price(offer.egress_per_gb * dec(task.egress_gb)));
    let time_cost = ctx.money(time_at(wall_expected));
    let risk_cost = ctx.money(penalty * dec(miss.unwrap_or(0.0)));
    let total_expected = ctx
        .money(rent.amount + storage.amount + egress.amount + time_cost.amount + risk_cost.amount);
    let missed_at_p90 = task.deadline_hours.is_some_and(|d| p90 > d);
    let total_p90 = ctx.money(
        ctx.money(rent_at(running_p90, p90)).amount
            + ctx.money(storage_at(p90)).amount
            + egress.amount
            + ctx.money(time_at(p90)).amount
            + if missed_at_p90 {
                ctx.money(penalty).amount
            } else {
                Decimal::ZERO
            },
    );

    if let Some(budget) = task.budget {
        let budget = ctx.money(ctx.task_money(budget));
        if total_expected.amount > budget.amount {
            flags.push(
                Reason::new(RuleId::OverBudget)
                    .with("total", total_expected.display())
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

    OptionResult {
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
        vram_fit,
        slowdown,
        hours_expected: round4(wall_expected),
        hours_p50: round4(p50),
        hours_p90: round4(p90),
        running_hours_expected: round4(expected.running_hours),
        queue_hours_expected: round4(expected.queue_hours),
        rework_hours_expected: round4(expected.rework_hours),
        interruptions_expected: round4(expected.interruptions),
        deadline_miss_probability: miss.map(round4),
        latency_p99_ms: latency_p99_ms.map(round4),
        io_hours_per_run: io_hours.filter(|_| service.is_none()).map(round4),
        rent,
        storage,
        egress,
        time_cost,
        risk_cost,
        total_expected,
        total_p90,
    }
}

fn vram_reason(rule: RuleId, need: f64, visible: f64) -> Reason {
    Reason::new(rule)
        .with("need_gib", fmt1(need))
        .with("visible_gib", fmt1(visible))
}

/// A region class's identifier.
pub fn region_class_id(class: RegionClass) -> &'static str {
    match class {
        RegionClass::Tier1 => "tier1",
        RegionClass::Remote => "remote",
        RegionClass::Overseas => "overseas",
    }
}
