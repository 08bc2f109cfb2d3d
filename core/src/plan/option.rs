//! One offer priced for the task: feasibility, time, money and the reasons behind them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::numbers::money::Money;
use crate::offers::billing::BillingMode;
use crate::offers::offer::RegionClass;
use crate::offers::tenancy::{Slowdown, Tenancy};
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
    /// What it costs, part by part, in the plan's currency.
    #[serde(flatten)]
    pub costs: Costs,
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
