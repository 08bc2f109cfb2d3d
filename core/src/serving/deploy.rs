//! Deployments of one service priced side by side, and the cheapest that meets its targets.
//!
//! - **Fixed fleet**: the replicas the peak hour needs, around the clock, on the on-demand offer
//!   or the committed one, whichever costs less.
//! - **Autoscaling** on a metered (pay-as-you-go) offer between `min_replicas` and
//!   `max_replicas`: each hour wants the replicas it needs; new ones serve only after the scale-up
//!   delay — the offer's queue P90 (`Offer::queue().quantile_hours(0.9)`), the instance start
//!   ([`DEFAULT_INSTANCE_START_SECONDS`]) and the model load (weight bytes at
//!   [`DEFAULT_LOAD_GB_PER_SECOND`], or a measured rate) — so the requests of a rising hour beyond
//!   what the replicas already running complete miss their targets. The minutes of the start and
//!   the load are billed (the queue is not); replicas stop as soon as an hour needs fewer.
//! - **Reserved base + burst**: a base of replicas on the committed (monthly or reserved) offer
//!   at its price per GPU-hour, the rest autoscaled on the metered offer; the base is the one of
//!   the hourly needs that costs least while meeting the attainment target.
//! - **Shared pool billed per use**: replicas on a shared offer, paying only busy GPU-hours
//!   (`max(1 − e^(−λ·t), λ / capacity)` replicas busy for an arrival rate λ and a lone request's
//!   time t), every P99 latency times the tenancy's tail. The pool is taken as kept warm by its
//!   provider (no cold starts counted).
//!
//! Costs are per month of 730 hours, in the offers' currency (the offers must share it), at
//! `offers::rent::price_per_gpu_hour`, whole instances rented (replicas packed into an offer's
//! GPUs). The cost per million output tokens divides by the tokens the traffic asks for.

use rust_decimal::Decimal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::{Currency, Money, dec};
use crate::numbers::problem::{FieldError, Problem};
use crate::offers::billing::HOURS_PER_MONTH;
use crate::offers::offer::Offer;
use crate::offers::rent::price_per_gpu_hour;
use crate::serving::error::{ServingError, in_range};
use crate::serving::replica::{BatchPoint, Replica, ReplicaHardware, ReplicaSetup};
use crate::serving::slo::{DEFAULT_HEADROOM, MAX_REPLICAS, missed_share, replicas_by_hour};
use crate::task::traffic::Traffic;

/// Seconds from asking for an instance to its being up, with a prebuilt image: 120, an
/// assumption inside the published 100-170 s (SkyPilot PR #4091: an AWS GPU VM in 1 min 41 s with
/// a custom image; PR #4205: an Azure A10 VM in 2 min 50 s with a pre-built image).
pub const DEFAULT_INSTANCE_START_SECONDS: f64 = 120.0;
/// Rate of loading weights into the GPU, GB/s: 1, stock safetensors from network disk
/// (run-ai/runai-model-streamer `docs/src/benchmarks.md` @ 001e588: 1.03 GiB/s from gp3;
/// scitix/InstantTensor `docs/benchmark.md` @ 48b6353: 1.07 GB/s).
pub const DEFAULT_LOAD_GB_PER_SECOND: f64 = 1.0;
/// Share of requests that must meet the targets: 0.99.
pub const DEFAULT_ATTAINMENT_TARGET: f64 = 0.99;
/// The most replicas an autoscaler may run by default.
pub const DEFAULT_MAX_REPLICAS: u32 = 64;

/// The settings every deployment shares.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeploySettings {
    /// Share of a replica's capacity an hour's mean load may use, (0, 1].
    pub headroom: f64,
    /// Replicas an autoscaler always keeps.
    pub min_replicas: u32,
    /// Replicas a deployment may run at most.
    pub max_replicas: u32,
    /// Seconds from asking for an instance to its being up.
    pub instance_start_seconds: f64,
    /// Rate of loading weights, GB/s (measured disk or network, or the default).
    pub load_gb_per_second: f64,
    /// Share of requests that must meet the targets, (0, 1].
    pub attainment_target: f64,
}

impl Default for DeploySettings {
    fn default() -> DeploySettings {
        DeploySettings {
            headroom: DEFAULT_HEADROOM,
            min_replicas: 1,
            max_replicas: DEFAULT_MAX_REPLICAS,
            instance_start_seconds: DEFAULT_INSTANCE_START_SECONDS,
            load_gb_per_second: DEFAULT_LOAD_GB_PER_SECOND,
            attainment_target: DEFAULT_ATTAINMENT_TARGET,
        }
    }
}

impl DeploySettings {
    /// Checks every field, naming the one at fault.
    pub fn validate(&self) -> Result<(), ServingError> {
        let above = |field: &str, v: f64, max: f64| {
            if v.is_finite() && v > 0.0 && v <= max {
                Ok(())
            } else {
                Err(ServingError::from(FieldError::new(
                    field,
                    Problem::AboveZero { max },
                )))
            }
        };
        above("headroom", self.headroom, 1.0)?;
        above("attainment_target", self.attainment_target, 1.0)?;
        above("load_gb_per_second", self.load_gb_per_second, 10_000.0)?;
        let range = in_range;
        range(
            "instance_start_seconds",
            self.instance_start_seconds,
            0.0,
            86_400.0,
        )?;
        range(
            "max_replicas",
            f64::from(self.max_replicas),
            1.0,
            f64::from(MAX_REPLICAS),
        )?;
        range(
            "min_replicas",
            f64::from(self.min_replicas),
            0.0,
            f64::from(self.max_replicas),
        )?;
        Ok(())
    }
}

/// The offers a service may run on.
#[derive(Debug, Clone, Copy)]
pub struct DeploymentOffers<'a> {
    /// The offer replicas run on by default: a metered one for autoscaling and bursts.
    pub on_demand: &'a Offer,
    /// A monthly or reserved offer for a base that runs around the clock.
    pub committed: Option<&'a Offer>,
    /// A shared offer billed per use.
    pub shared: Option<&'a Offer>,
}

impl<'a> DeploymentOffers<'a> {
    /// One offer alone.
    pub fn one(offer: &'a Offer) -> DeploymentOffers<'a> {
        DeploymentOffers {
            on_demand: offer,
            committed: None,
            shared: None,
        }
    }
}

/// How a service is deployed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeploymentKind {
    /// Replicas for the peak, around the clock.
    FixedFleet,
    /// Pay-as-you-go replicas following the traffic.
    Autoscaling,
    /// A committed base plus pay-as-you-go bursts.
    ReservedBase,
    /// A shared pool billed per busy GPU-hour.
    SharedPool,
}

identifiers!(DeploymentKind {
    FixedFleet => "fixed_fleet",
    Autoscaling => "autoscaling",
    ReservedBase => "reserved_base",
    SharedPool => "shared_pool",
});

/// The load of a new replica's weights: seconds, at what rate, and whether the rate was measured
/// on the machine (an offer's `io`, from a probe profile or the catalog) or is the default.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelLoad {
    /// Seconds to get the weights onto the GPUs.
    pub seconds: f64,
    /// The rate, GB/s (10^9 bytes per second).
    pub gb_per_second: f64,
    /// Whether the rate is the offer's measured disk or network rate (`IoRates::load_gb_per_second`).
    pub measured: bool,
}

impl ModelLoad {
    /// Loading `weight_bytes` on `offer`: at its measured rate when it has one, else at the
    /// settings' default.
    pub fn of(weight_bytes: f64, offer: &Offer, settings: &DeploySettings) -> ModelLoad {
        let measured = offer.io.and_then(|io| io.load_gb_per_second());
        let gb_per_second = measured.unwrap_or(settings.load_gb_per_second);
        ModelLoad {
            seconds: weight_bytes / (gb_per_second * 1e9),
            gb_per_second,
            measured: measured.is_some(),
        }
    }
}

/// One deployment priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Deployment {
    /// How it is deployed.
    pub kind: DeploymentKind,
    /// The offer its replicas (its base, for a reserved base) run on.
    pub offer_id: String,
    /// The offer bursts run on, for a reserved base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_offer_id: Option<String>,
    /// GPUs per replica.
    pub gpus_per_replica: u32,
    /// A replica's figures at the largest batch meeting the targets (the base's, for a reserved
    /// base).
    pub capacity: BatchPoint,
    /// Cost per month of 730 hours.
    pub cost_per_month: Money,
    /// Cost per million output tokens asked for; none without traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_per_million_output_tokens: Option<Money>,
    /// Share of requests meeting their targets, 0-1.
    pub attainment: f64,
    /// Replicas serving in each hour of the traffic's period (a mean over the hour; busy
    /// replicas for a shared pool).
    pub replicas_by_hour: Vec<f64>,
    /// Replicas of the committed base (reserved base), or always running (fixed fleet).
    pub base_replicas: u32,
    /// Seconds from wanting a replica to its serving, when replicas are added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up_seconds: Option<f64>,
    /// How a new replica's weights are loaded (autoscaling and bursts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_load: Option<ModelLoad>,
    /// GPU-hours billed per month.
    pub gpu_hours_per_month: f64,
    /// How the figures were obtained, in words.
    pub notes: Vec<String>,
}

/// A deployment that could not be priced, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// The deployment.
    pub kind: DeploymentKind,
    /// Why.
    pub reason: String,
}

/// Every deployment of a service priced, those skipped and the assumptions behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Deployments {
    /// The traffic's name.
    pub traffic: String,
    /// The currency of every cost.
    pub currency: Currency,
    /// The priced deployments.
    pub deployments: Vec<Deployment>,
    /// The deployments not priced.
    pub skipped: Vec<Skipped>,
    /// Assumptions, labelled as such.
    pub assumptions: Vec<String>,
}

/// A replica on one offer, with its price.
struct OnOffer<'a> {
    offer: &'a Offer,
    replica: Replica,
    capacity: BatchPoint,
    per_gpu_hour: Decimal,
}

impl OnOffer<'_> {
    /// GPUs rented for `replicas`: whole instances of the offer's GPU count.
    fn rented_gpus(&self, replicas: u32) -> f64 {
        let per = u64::from(self.replica.setup().gpus);
        let unit = u64::from(self.offer.gpu_count.max(1));
        let gpus = u64::from(replicas).saturating_mul(per);
        gpus.div_ceil(unit).saturating_mul(unit) as f64
    }

    fn cost(&self, gpu_hours: f64) -> Decimal {
        self.per_gpu_hour
            .checked_mul(dec(gpu_hours))
            .unwrap_or(Decimal::MAX)
    }
}

fn on_offer<'a>(
    offer: &'a Offer,
    setup: &ReplicaSetup,
    traffic: &Traffic,
) -> Result<OnOffer<'a>, String> {
    let hw = ReplicaHardware::of_offer(offer).map_err(|e| format!("offer {}: {e}", offer.id))?;
    let replica = Replica::new(setup, &hw, traffic.prompt_tokens, traffic.output_tokens)
        .map_err(|e| format!("offer {}: {e}", offer.id))?;
    let capacity = replica.capacity(&traffic.targets).ok_or_else(|| {
        let lone = replica.at(1);
        format!(
            "offer {}: even a lone request misses the targets (P99 TTFT {:.0} ms for {:.0}, time per token {:.1} ms for {:.1})",
            offer.id,
            lone.ttft_p99_ms,
            traffic.targets.ttft_p99_ms,
            lone.tpot_p99_ms,
            traffic.targets.tpot_p99_ms
        )
    })?;
    Ok(OnOffer {
        offer,
        replica,
        capacity,
        per_gpu_hour: price_per_gpu_hour(offer),
    })
}

/// What the autoscaling walk gives for one period.
struct Walk {
    /// Mean serving replicas (base + burst) by hour.
    running: Vec<f64>,
    /// Burst GPU-hours billed in the period, starts included.
    burst_gpu_hours: f64,
    /// Requests missing their targets, and all requests, per second summed over hours.
    missed: f64,
    total: f64,
    starts: u64,
}

/// Walks one period minute by minute (in two segments per hour): `base` replicas of
/// `base_capacity` always serve; the burst wants `burst[h]` replicas of `burst_capacity` in hour
/// `h`, each serving `delay_s` after it is wanted (billed for the last `billed_start_s` of it) and
/// stopping as soon as it is not. The period
/// repeats, so the walk starts where it ends.
fn walk(
    rps: &[f64],
    base: u32,
    base_capacity: f64,
    burst: &[u32],
    burst_capacity: f64,
    (delay_s, billed_start_s): (f64, f64),
    burst_on: &OnOffer<'_>,
) -> Walk {
    let hours = burst.len().min(rps.len());
    let period = hours as i64 * 60;
    let delay = if delay_s.is_finite() {
        (libm::ceil(delay_s.max(0.0) / 60.0) as i64).min(period)
    } else {
        period
    };
    let at = |j: i64| -> u32 {
        if hours == 0 {
            return 0;
        }
        burst
            .get(j.rem_euclid(hours as i64) as usize)
            .copied()
            .unwrap_or(0)
    };
    // The least burst wanted over hours `from..=to` (cyclic): what has been up all that while.
    let least = |from: i64, to: i64| -> u32 {
        if to - from + 1 >= hours as i64 {
            return burst.iter().copied().min().unwrap_or(0);
        }
        (from..=to).map(at).min().unwrap_or(0)
    };
    let per_replica_gpus = f64::from(burst_on.replica.setup().gpus);
    let mut out = Walk {
        running: Vec::with_capacity(hours),
        burst_gpu_hours: 0.0,
        missed: 0.0,
        total: 0.0,
        starts: 0,
    };
    for (h, rate) in rps.iter().take(hours).enumerate() {
        let h = h as i64;
        let r = h * 60 - delay;
        let first = r.div_euclid(60);
        let rem = r.rem_euclid(60);
        let minutes_a = if rem == 0 { 60 } else { 60 - rem };
        let a = least(first, h);
        let b = if rem == 0 { a } else { least(first + 1, h) };
        let share_a = minutes_a as f64 / 60.0;
        let share_b = 1.0 - share_a;
        let starts = at(h).saturating_sub(at(h - 1));
        out.starts += u64::from(starts);
        out.running
            .push(f64::from(base) + share_a * f64::from(a) + share_b * f64::from(b));
        out.burst_gpu_hours += share_a * burst_on.rented_gpus(a)
            + share_b * burst_on.rented_gpus(b)
            + f64::from(starts) * per_replica_gpus * billed_start_s / 3600.0;
        let miss = |n: u32| {
            let served = f64::from(base) * base_capacity + f64::from(n) * burst_capacity;
            missed_share(*rate, 1.0, served)
        };
        if rate.is_finite() && *rate > 0.0 {
            out.total += rate;
            out.missed += rate * (share_a * miss(a) + share_b * miss(b));
        }
    }
    out
}

fn money(amount: Decimal, currency: Currency) -> Money {
    Money::new(amount.round_dp(2), currency)
}

fn per_million(cost: Decimal, tokens_per_month: f64, currency: Currency) -> Option<Money> {
    // From the month's cost as shown, so the two figures a user reads divide into each other.
    let cost = cost.round_dp(2);
    if !(tokens_per_month.is_finite() && tokens_per_month > 0.0) {
        return None;
    }
    cost.checked_div(dec(tokens_per_month / 1e6))
        .filter(|_| tokens_per_month / 1e6 >= 1e-6)
        .map(|c| Money::new(c.round_dp(4), currency))
}

fn same_currency(field: &str, offer: &Offer, currency: Currency) -> Result<(), ServingError> {
    if offer.currency == currency {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            Problem::NotOneOf {
                value: offer.currency.code().to_owned(),
                allowed: currency.code().to_owned(),
            },
        )
        .into())
    }
}

/// Prices every deployment of `traffic` served by replicas of `setup` on `offers`: fixed fleet,
/// autoscaling, reserved base + burst and shared pool, each with its cost per month, cost per
/// million output tokens, attainment and replicas by hour. A deployment its offers cannot carry
/// (no committed or shared offer, a term-billed offer to autoscale, a model that does not fit, a
/// target even a lone request misses) is listed in `skipped` with the reason. Bad input is an
/// error naming the field; nothing panics.
pub fn price_deployments(
    traffic: &Traffic,
    setup: &ReplicaSetup,
    offers: &DeploymentOffers<'_>,
    settings: &DeploySettings,
) -> Result<Deployments, ServingError> {
    traffic.validate()?;
    setup.validate()?;
    settings.validate()?;
    let currency = offers.on_demand.currency;
    if let Some(c) = offers.committed {
        same_currency("committed.currency", c, currency)?;
    }
    if let Some(s) = offers.shared {
        same_currency("shared.currency", s, currency)?;
    }
    let hours = traffic.period_hours();
    let month = HOURS_PER_MONTH / hours.max(1) as f64;
    let tokens = traffic.output_tokens_per_month();
    let rps = &traffic.rps_by_hour;
    let mut out = Deployments {
        traffic: traffic.name.clone(),
        currency,
        deployments: vec![],
        skipped: vec![],
        assumptions: vec![
            format!(
                "an hour's mean load uses at most {} of a replica's capacity at the largest batch meeting the targets (headroom, an assumption)",
                settings.headroom
            ),
            "requests above the serving replicas' capacity miss their targets; bursts inside an hour are left to the headroom".to_owned(),
            "autoscaled replicas stop as soon as an hour needs fewer; starts and model loads are billed, queue waits are not".to_owned(),
            "a shared pool is kept warm by its provider and billed for busy GPU-hours only".to_owned(),
            format!("a month is {HOURS_PER_MONTH} hours; the traffic's {hours}-hour curve repeats"),
        ],
    };
    let skip = |out: &mut Deployments, kind, reason: String| {
        out.skipped.push(Skipped { kind, reason });
    };
    let demand = on_offer(offers.on_demand, setup, traffic);
    let committed = offers.committed.map(|c| on_offer(c, setup, traffic));
    let base_note = |o: &OnOffer<'_>| {
        format!(
            "a replica of {} x {} on {} serves {:.2} requests/s ({:.0} output tokens/s at batch {}, P99 TTFT {:.0} ms, time per token {:.1} ms)",
            o.replica.setup().gpus,
            o.replica.hardware().gpu,
            o.offer.id,
            o.capacity.requests_per_second,
            o.capacity.output_tokens_per_second,
            o.capacity.batch,
            o.capacity.ttft_p99_ms,
            o.capacity.tpot_p99_ms
        )
    };
    let delay_of = |o: &OnOffer<'_>| {
        let queue = o.offer.queue().quantile_hours(0.9) * 3600.0;
        let queue = if queue.is_finite() {
            queue.max(0.0)
        } else {
            0.0
        };
        let load = ModelLoad::of(o.replica.weight_bytes(), o.offer, settings);
        (queue, settings.instance_start_seconds, load)
    };

    // (a) Fixed fleet for the peak, on the cheaper of the on-demand and committed offers.
    let mut fleets = vec![];
    for candidate in [Some(&demand), committed.as_ref()].into_iter().flatten() {
        match candidate {
            Ok(o) => {
                let need = replicas_by_hour(rps, o.capacity.requests_per_second, settings.headroom);
                let peak = need.iter().copied().max().unwrap_or(0).max(1);
                let n = peak.min(settings.max_replicas);
                let gpu_hours = o.rented_gpus(n) * hours as f64 * month;
                let cost = o.cost(gpu_hours);
                let running = vec![f64::from(n); hours];
                let attainment =
                    crate::serving::slo::attainment(rps, &running, o.capacity.requests_per_second);
                let mut notes = vec![
                    base_note(o),
                    format!(
                        "{n} replicas around the clock ({} GPUs rented) for the peak hour's {:.2} requests/s",
                        o.rented_gpus(n),
                        traffic.peak_rps()
                    ),
                ];
                if n < peak {
                    notes.push(format!(
                        "capped at {} replicas; the peak needs {peak}",
                        settings.max_replicas
                    ));
                }
                fleets.push(Deployment {
                    kind: DeploymentKind::FixedFleet,
                    offer_id: o.offer.id.clone(),
                    burst_offer_id: None,
                    gpus_per_replica: setup.gpus,
                    capacity: o.capacity,
                    cost_per_month: money(cost, currency),
                    cost_per_million_output_tokens: per_million(cost, tokens, currency),
                    attainment,
                    replicas_by_hour: running,
                    base_replicas: n,
                    scale_up_seconds: None,
                    model_load: None,
                    gpu_hours_per_month: gpu_hours,
                    notes,
                });
            }
            Err(reason) => skip(&mut out, DeploymentKind::FixedFleet, reason.clone()),
        }
    }
    if let Some(best) = fleets.into_iter().min_by(|a, b| {
        a.cost_per_month
            .amount
            .cmp(&b.cost_per_month.amount)
            .then(b.attainment.total_cmp(&a.attainment))
    }) {
        out.skipped.retain(|s| s.kind != DeploymentKind::FixedFleet);
        out.deployments.push(best);
    }

    // (b) Autoscaling on the metered offer.
    match &demand {
        Ok(o) if o.offer.billing_mode.is_metered() => {
            let cap = o.capacity.requests_per_second;
            let want: Vec<u32> = replicas_by_hour(rps, cap, settings.headroom)
                .into_iter()
                .map(|n| n.clamp(settings.min_replicas, settings.max_replicas))
                .collect();
            let (queue, start, model_load) = delay_of(o);
            let load = model_load.seconds;
            let delay = queue + start + load;
            let w = walk(rps, 0, 0.0, &want, cap, (delay, start + load), o);
            let gpu_hours = w.burst_gpu_hours * month;
            let cost = o.cost(gpu_hours);
            let attainment = if w.total > 0.0 {
                1.0 - w.missed / w.total
            } else {
                1.0
            };
            out.deployments.push(Deployment {
                kind: DeploymentKind::Autoscaling,
                offer_id: o.offer.id.clone(),
                burst_offer_id: None,
                gpus_per_replica: setup.gpus,
                capacity: o.capacity,
                cost_per_month: money(cost, currency),
                cost_per_million_output_tokens: per_million(cost, tokens, currency),
                attainment,
                replicas_by_hour: w.running,
                base_replicas: settings.min_replicas,
                scale_up_seconds: Some(delay),
                model_load: Some(model_load),
                gpu_hours_per_month: gpu_hours,
                notes: vec![
                    base_note(o),
                    format!(
                        "{}-{} replicas; a new one serves after {delay:.0} s: queue P90 {queue:.0} s + instance start {start:.0} s + model load {load:.0} s ({:.1} GB at {:.2} GB/s, {})",
                        settings.min_replicas,
                        settings.max_replicas,
                        o.replica.weight_bytes() / 1e9,
                        model_load.gb_per_second,
                        if model_load.measured {
                            "the slower of the disk and network rates measured on the machine"
                        } else {
                            "the default rate; a probe profile's measured rates replace it"
                        }
                    ),
                    format!("{} replica starts per {hours}-hour period", w.starts),
                ],
            });
        }
        Ok(o) => skip(
            &mut out,
            DeploymentKind::Autoscaling,
            format!(
                "offer {} is billed per {} term, not per use: it cannot scale with the traffic",
                o.offer.id,
                o.offer.billing_mode.id()
            ),
        ),
        Err(reason) => skip(&mut out, DeploymentKind::Autoscaling, reason.clone()),
    }

    // (c) Committed base + metered burst.
    match (&committed, &demand) {
        (None, _) => skip(
            &mut out,
            DeploymentKind::ReservedBase,
            "no committed (monthly or reserved) offer was given for the base".to_owned(),
        ),
        (Some(Err(reason)), _) | (_, Err(reason)) => {
            skip(&mut out, DeploymentKind::ReservedBase, reason.clone());
        }
        (Some(Ok(_)), Ok(d)) if !d.offer.billing_mode.is_metered() => skip(
            &mut out,
            DeploymentKind::ReservedBase,
            format!(
                "offer {} is billed per {} term: bursts need a pay-as-you-go offer",
                d.offer.id,
                d.offer.billing_mode.id()
            ),
        ),
        (Some(Ok(c)), Ok(d)) => {
            let base_cap = c.capacity.requests_per_second;
            let burst_cap = d.capacity.requests_per_second;
            let (queue, start, model_load) = delay_of(d);
            let load = model_load.seconds;
            let delay = queue + start + load;
            let mut candidates: Vec<u32> = replicas_by_hour(rps, base_cap, settings.headroom)
                .into_iter()
                .chain([1])
                .filter(|b| *b >= 1 && *b <= settings.max_replicas)
                .collect();
            candidates.sort_unstable();
            candidates.dedup();
            let mut best: Option<(bool, Decimal, f64, u32, Walk, f64)> = None;
            for b in candidates {
                let burst: Vec<u32> = rps
                    .iter()
                    .map(|r| {
                        let left = (r - f64::from(b) * base_cap * settings.headroom).max(0.0);
                        crate::serving::slo::replicas_needed(left, burst_cap, settings.headroom)
                            .min(settings.max_replicas - b)
                    })
                    .collect();
                let w = walk(
                    rps,
                    b,
                    base_cap,
                    &burst,
                    burst_cap,
                    (delay, start + load),
                    d,
                );
                let base_gpu_hours = c.rented_gpus(b) * hours as f64 * month;
                let cost = c
                    .cost(base_gpu_hours)
                    .checked_add(d.cost(w.burst_gpu_hours * month))
                    .unwrap_or(Decimal::MAX);
                let attainment = if w.total > 0.0 {
                    1.0 - w.missed / w.total
                } else {
                    1.0
                };
                let meets = attainment >= settings.attainment_target;
                let better = match &best {
                    None => true,
                    Some((m, bc, ba, ..)) => {
                        (meets && !m)
                            || (meets == *m
                                && if meets {
                                    cost < *bc
                                } else {
                                    attainment > *ba || (attainment == *ba && cost < *bc)
                                })
                    }
                };
                if better {
                    best = Some((meets, cost, attainment, b, w, base_gpu_hours));
                }
            }
            if let Some((_, cost, attainment, b, w, base_gpu_hours)) = best {
                out.deployments.push(Deployment {
                    kind: DeploymentKind::ReservedBase,
                    offer_id: c.offer.id.clone(),
                    burst_offer_id: Some(d.offer.id.clone()),
                    gpus_per_replica: setup.gpus,
                    capacity: c.capacity,
                    cost_per_month: money(cost, currency),
                    cost_per_million_output_tokens: per_million(cost, tokens, currency),
                    attainment,
                    replicas_by_hour: w.running,
                    base_replicas: b,
                    scale_up_seconds: Some(delay),
                    model_load: Some(model_load),
                    gpu_hours_per_month: base_gpu_hours + w.burst_gpu_hours * month,
                    notes: vec![
                        base_note(c),
                        format!(
                            "a base of {b} replicas on {} around the clock, the cheapest base meeting the target among the hourly needs; bursts on {} after {delay:.0} s",
                            c.offer.id, d.offer.id
                        ),
                        format!("{} burst starts per {hours}-hour period", w.starts),
                    ],
                });
            }
        }
    }

    // (d) Shared pool billed per use.
    match offers.shared.map(|s| on_offer(s, setup, traffic)) {
        None => skip(
            &mut out,
            DeploymentKind::SharedPool,
            "no shared offer was given".to_owned(),
        ),
        Some(Err(reason)) => skip(&mut out, DeploymentKind::SharedPool, reason),
        Some(Ok(s)) if setup.gpus > 1 && s.offer.tenancy.is_slice() => skip(
            &mut out,
            DeploymentKind::SharedPool,
            format!(
                "offer {} is a slice of a card, which cannot join a {}-GPU replica",
                s.offer.id, setup.gpus
            ),
        ),
        Some(Ok(s)) => {
            let cap = s.capacity.requests_per_second;
            let alone = s.replica.request_seconds_alone();
            let busy: Vec<f64> = rps
                .iter()
                .map(|r| {
                    if *r > 0.0 {
                        (1.0 - libm::exp(-r * alone)).max(r / cap)
                    } else {
                        0.0
                    }
                })
                .collect();
            let gpu_hours = busy.iter().sum::<f64>() * f64::from(setup.gpus) * month;
            let cost = s.cost(gpu_hours);
            out.deployments.push(Deployment {
                kind: DeploymentKind::SharedPool,
                offer_id: s.offer.id.clone(),
                burst_offer_id: None,
                gpus_per_replica: setup.gpus,
                capacity: s.capacity,
                cost_per_month: money(cost, currency),
                cost_per_million_output_tokens: per_million(cost, tokens, currency),
                attainment: 1.0,
                replicas_by_hour: busy,
                base_replicas: 0,
                scale_up_seconds: None,
                model_load: None,
                gpu_hours_per_month: gpu_hours,
                notes: vec![
                    base_note(&s),
                    format!(
                        "{} tenancy: P99 latencies x {:.2}; billed for busy GPU-hours only (a lone request keeps a replica busy {alone:.1} s)",
                        s.offer.tenancy.id(),
                        s.replica.hardware().latency_p99_factor
                    ),
                ],
            });
        }
    }
    Ok(out)
}

/// The deployment chosen, and why, in words whose figures are the deployments' own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    /// The deployment chosen.
    pub kind: DeploymentKind,
    /// Its offer.
    pub offer_id: String,
    /// Its cost per month.
    pub cost_per_month: Money,
    /// Its attainment.
    pub attainment: f64,
    /// Whether it meets the attainment target (false: none does, and it comes closest).
    pub meets_target: bool,
    /// Why, with the figures compared.
    pub reason: String,
}

fn show(m: &Money) -> String {
    format!("{} {}", m.plain(), m.currency.code())
}

/// The cheapest deployment whose attainment is at least `attainment_target`; when none meets
/// it, the one that comes closest (the cheaper of equals). The reason compares it with the next
/// cheapest meeting the target and names any cheaper one that misses it; every saving it states
/// is the difference of the two costs shown. None when nothing was priced.
pub fn choose(deployments: &Deployments, attainment_target: f64) -> Option<Choice> {
    let all = &deployments.deployments;
    let mut meeting: Vec<&Deployment> = all
        .iter()
        .filter(|d| d.attainment >= attainment_target)
        .collect();
    meeting.sort_by(|a, b| {
        a.cost_per_month
            .amount
            .cmp(&b.cost_per_month.amount)
            .then(b.attainment.total_cmp(&a.attainment))
            .then(a.kind.cmp(&b.kind))
    });
    if let Some(best) = meeting.first() {
        let mut reason = format!(
            "{} on {} is the cheapest deployment meeting the target: {} a month, {:.4} of requests within their targets (target {attainment_target})",
            best.kind.id(),
            best.offer_id,
            show(&best.cost_per_month),
            best.attainment
        );
        match meeting.get(1) {
            Some(next) => {
                let diff = next.cost_per_month.amount - best.cost_per_month.amount;
                if diff > Decimal::ZERO {
                    reason.push_str(&format!(
                        "; the next, {}, costs {} ({} {} more)",
                        next.kind.id(),
                        show(&next.cost_per_month),
                        diff.round_dp(2),
                        deployments.currency.code()
                    ));
                } else {
                    reason.push_str(&format!(
                        "; {} costs the same ({})",
                        next.kind.id(),
                        show(&next.cost_per_month)
                    ));
                }
            }
            None => reason.push_str("; no other deployment meets it"),
        }
        for cheaper in all.iter().filter(|d| {
            d.attainment < attainment_target && d.cost_per_month.amount < best.cost_per_month.amount
        }) {
            reason.push_str(&format!(
                "; {} is cheaper at {} but only {:.4} of requests meet their targets",
                cheaper.kind.id(),
                show(&cheaper.cost_per_month),
                cheaper.attainment
            ));
        }
        return Some(Choice {
            kind: best.kind,
            offer_id: best.offer_id.clone(),
            cost_per_month: best.cost_per_month,
            attainment: best.attainment,
            meets_target: true,
            reason,
        });
    }
    let closest = all.iter().min_by(|a, b| {
        b.attainment
            .total_cmp(&a.attainment)
            .then(a.cost_per_month.amount.cmp(&b.cost_per_month.amount))
    })?;
    Some(Choice {
        kind: closest.kind,
        offer_id: closest.offer_id.clone(),
        cost_per_month: closest.cost_per_month,
        attainment: closest.attainment,
        meets_target: false,
        reason: format!(
            "no deployment meets the target {attainment_target}; {} on {} comes closest, {:.4} of requests within their targets, at {} a month",
            closest.kind.id(),
            closest.offer_id,
            closest.attainment,
            show(&closest.cost_per_month)
        ),
    })
}
