//! One offer priced for the task: feasibility, time, money and the reasons behind them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::date::PriceDate;
use crate::numbers::money::Money;
use crate::offers::billing::BillingMode;
use crate::offers::latency::RoundTrip;
use crate::offers::offer::{Offer, PriceEvidence, RegionClass};
use crate::offers::queue::QueueHours;
use crate::offers::tenancy::{LatencyFactor, NeighbourLoad, Slowdown, Tenancy};
use crate::plan::feasibility::VramFit;
use crate::plan::reason::Reason;
use crate::plan::risk::Risk;
use crate::task::policy::Policy;

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
    /// Expected queue hours (all the task's starts).
    pub queue_hours_expected: f64,
    /// The wait before one start: P50, P90, P99, mean and where the queue comes from.
    pub queue_hours: QueueHours,
    /// The neighbours' load the slowdown was worked out with, for a work-conserving tenancy
    /// without a typed or measured slowdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbour_load: Option<NeighbourLoad>,
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
    /// The tenancy's request-level P99 latency factor over the same request alone, with its
    /// spread and source; the latency check of an inference task uses it.
    pub latency_p99_factor: LatencyFactor,
    /// The round trip from the user's location to the offer and where it comes from (the catalog
    /// row's own figure for an offer with no fixed place), when the task gives a location or
    /// measured round trips; absent otherwise (the catalog row's `rtt_ms` applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trip: Option<RoundTrip>,
    /// Compute and communication of a data-parallel run over the offer's links (absent for one
    /// GPU or a task that does not say how it exchanges data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub communication: Option<crate::plan::scaling::Communication>,
    /// Hours each run spends on measured IO beyond the GPU work (disk reads the GPU waits for,
    /// downloads before the start); absent when no measured IO rate applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_hours_per_run: Option<f64>,
    /// What it costs, part by part, in the plan's currency.
    #[serde(flatten)]
    pub costs: Costs,
    /// The date, evidence and age of the offer's price.
    #[serde(flatten)]
    pub price: PriceFacts,
    /// The policy behind the figures, for an interruptible offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
    /// Interruptions, the trace and every policy priced, for an interruptible offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
}

/// What a task costs on one offer, in the plan's currency, each part rounded to the cent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Costs {
    /// Expected rent.
    pub rent: Money,
    /// Storage (billed while stopped too) and the system disk.
    pub storage: Money,
    /// Egress.
    pub egress: Money,
    /// Value of the wall-clock time spent.
    pub time_cost: Money,
    /// Expected deadline penalty.
    pub risk_cost: Money,
    /// Expected total: the sum of the rounded parts.
    pub total_expected: Money,
    /// The total of the trial at the 90th percentile of wall-clock time.
    pub total_p90: Money,
}

/// Most days a price may have aged before a recommendation resting on it says so. GPU rents move
/// within months — new generations arrive, list prices are cut, spot and marketplace prices follow
/// supply — and half a year is long enough for a move larger than the 10 % margin that can tip
/// the decision ([`crate::plan::decision::PREFERENCE_MARGIN_PCT`]), yet a catalog refreshed twice
/// a year stays clear of the caveat.
pub const STALE_PRICE_DAYS: u32 = 180;

/// Where an offer's price stands: its date, the evidence behind it and, when the plan knows
/// today, its age. Written with the option's other fields; absent parts are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PriceFacts {
    /// The price's date, `YYYY-MM-DD`, or `YYYY-MM` when the source gives only the month.
    #[serde(default)]
    pub price_as_of: String,
    /// How strong the evidence behind the price is, when the catalog says (an estimate always
    /// says `estimate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_evidence: Option<PriceEvidence>,
    /// Whether the price is an estimate rather than a public figure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub price_is_estimate: bool,
    /// Whole days from the price's date to the plan's `today` (a month counts from its first
    /// day, the oldest the price can be); absent when the plan was given no today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_age_days: Option<u32>,
}

impl PriceFacts {
    /// The facts of `offer`'s price, its age counted to `today` when given.
    pub fn of(offer: &Offer, today: Option<PriceDate>) -> PriceFacts {
        PriceFacts {
            price_as_of: offer.as_of.clone(),
            price_evidence: offer.evidence(),
            price_is_estimate: offer.estimate,
            price_age_days: today
                .zip(offer.price_date())
                .map(|(today, date)| date.age_days(today)),
        }
    }

    /// Whether the price is older than [`STALE_PRICE_DAYS`] (unknown without today: no).
    pub fn is_stale(&self) -> bool {
        self.price_age_days.is_some_and(|d| d > STALE_PRICE_DAYS)
    }

    /// Whether a recommendation resting on this price should say how uncertain it is: an
    /// estimate, or a price older than [`STALE_PRICE_DAYS`].
    pub fn needs_caveat(&self) -> bool {
        self.price_is_estimate || self.is_stale()
    }
}
