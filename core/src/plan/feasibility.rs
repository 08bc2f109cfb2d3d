//! Whether a task can run on an offer at all, before any time or money: VRAM, GPU count, slices,
//! data sensitivity, interruptions and the queue. One rule, used by the plan, the hybrid plan,
//! the decision and the workload estimator's catalog fit.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A VRAM need above this share of the visible VRAM is "tight".
pub const VRAM_TIGHT_SHARE: f64 = 0.9;

/// How the task's VRAM need compares with what an offer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VramFit {
    /// Need <= 90 % of visible VRAM.
    Fits,
    /// Need within the last 10 % of visible VRAM.
    Tight,
    /// Need above visible VRAM: infeasible.
    Oom,
}

/// How a need of `need_gib` per GPU compares with `visible_gib`: up to [`VRAM_TIGHT_SHARE`] of it
/// fits, up to all of it is tight, above it (or a need that is not a number) is out of memory.
pub fn vram_fit(need_gib: f64, visible_gib: f64) -> VramFit {
    if need_gib > visible_gib || need_gib.is_nan() {
        VramFit::Oom
    } else if need_gib > VRAM_TIGHT_SHARE * visible_gib {
        VramFit::Tight
    } else {
        VramFit::Fits
    }
}
