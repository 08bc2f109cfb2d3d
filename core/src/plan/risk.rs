//! The risk report of an interruptible offer: the interruption figures used and where they come
//! from, what a trace holds, and every policy priced by the model and by the trace replay.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::offers::interruption::RateForm;
use crate::offers::trace::TraceStats;
use crate::task::policy::Policy;

/// The quantiles of completion time kept for charts: 5 %, 10 %, ..., 95 %, then 99 %.
pub const CDF_QUANTILES: [f64; 20] = [
    0.05, 0.10, 0.15, 0.20, 0.25, 0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80,
    0.85, 0.90, 0.95, 0.99,
];

/// Where the interruption figures of the model come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RiskSource {
    /// The offer's own figures (catalog row, quote).
    Offer,
    /// Fitted to a trace attached to the offer.
    Trace,
}

identifiers!(RiskSource {
    Offer => "offer",
    Trace => "trace",
});

/// How one way of running the task went, over Monte Carlo trials or trace starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outcome {
    /// Trials (Monte Carlo) or starts (replay) it summarises.
    pub samples: u32,
    /// Mean wall-clock hours to complete.
    pub hours_mean: f64,
    /// Median wall-clock hours.
    pub hours_p50: f64,
    /// 90th-percentile wall-clock hours.
    pub hours_p90: f64,
    /// 99th-percentile wall-clock hours.
    pub hours_p99: f64,
    /// Mean hours billed (the offer and any fallback together).
    pub billed_hours_mean: f64,
    /// Median hours billed.
    pub billed_hours_p50: f64,
    /// 90th-percentile hours billed.
    pub billed_hours_p90: f64,
    /// 99th-percentile hours billed.
    pub billed_hours_p99: f64,
    /// Mean hours billed on the fallback offer.
    pub fallback_hours_mean: f64,
    /// Share of samples that moved to the fallback.
    pub switched_share: f64,
    /// Mean preemptions met.
    pub preemptions_mean: f64,
    /// Share of samples that never finished within the practical horizon.
    pub unfinished_share: f64,
    /// Probability of missing the deadline, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_miss_probability: Option<f64>,
    /// Expected total (rent, storage, egress, time and deadline risk), in the plan's currency.
    pub total_expected: f64,
    /// Total of the sample at the 90th percentile of wall-clock time.
    pub total_p90: f64,
    /// Wall-clock hours at the quantiles of [`CDF_QUANTILES`], for the chart.
    pub cdf_hours: Vec<f64>,
}

/// One policy priced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PolicyResult {
    /// The policy and its parameters.
    pub policy: Policy,
    /// Its identifier, e.g. `fallback_after_2`.
    pub id: String,
    /// Priced by the model's Monte Carlo.
    pub model: Outcome,
    /// Priced by replaying the attached trace from every tick, when one is attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Outcome>,
    /// Whether it meets the task's hard rules (finishes; P90 within a hard deadline).
    pub usable: bool,
}

impl PolicyResult {
    /// The figures that count: the replay where a trace is attached (evidence beats the
    /// model), else the model.
    pub fn evidence(&self) -> &Outcome {
        self.replay.as_ref().unwrap_or(&self.model)
    }
}

/// The risk report of an interruptible offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Risk {
    /// Preemptions per running hour used by the model.
    pub rate_per_hour: f64,
    /// Where that rate (and the gap) come from.
    pub rate_source: RiskSource,
    /// The form the offer gave its rate in (absent when fitted to a trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_form: Option<RateForm>,
    /// The lowest rate the evidence supports, per running hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_low_per_hour: Option<f64>,
    /// The highest rate the evidence supports, per running hour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_high_per_hour: Option<f64>,
    /// Expected total of staying on the offer at the low end of the range, in the plan's
    /// currency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_at_low: Option<f64>,
    /// Expected total of staying on the offer at the high end of the range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_at_high: Option<f64>,
    /// Mean hours without capacity after a preemption.
    pub gap_hours: f64,
    /// Notice before a preemption, seconds.
    pub notice_seconds: f64,
    /// Whether that notice is long enough to write a checkpoint (no work lost).
    pub saves_on_notice: bool,
    /// Hours after each start of an instance in which it is never preempted, as the model
    /// applied them (absent when none: no protection, or an offer that holds its machine between
    /// runs).
    #[serde(
        default,
        skip_serializing_if = "crate::numbers::serde_default::is_zero"
    )]
    pub protection_hours: f64,
    /// The offer's note on where its figures come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The uninterruptible offer the policies fall back to, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_offer: Option<String>,
    /// What the attached trace holds, when one is attached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceStats>,
    /// Every policy priced, staying on the offer first.
    pub policies: Vec<PolicyResult>,
    /// The policy behind the offer's figures in the ranking.
    pub chosen: Policy,
}

impl Risk {
    /// The chosen policy's result.
    pub fn chosen_result(&self) -> Option<&PolicyResult> {
        self.policies.iter().find(|p| p.policy == self.chosen)
    }

    /// The result of staying on the offer.
    pub fn spot_only(&self) -> Option<&PolicyResult> {
        self.policies.iter().find(|p| p.policy == Policy::SpotOnly)
    }
}
